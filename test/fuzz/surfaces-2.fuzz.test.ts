// The fuzzing of every surface, shard 2 of 2 (test/fuzz/surfaces.ts says what it checks).
import { fuzzSurfaces } from './surfaces';

fuzzSurfaces(1, 2);
