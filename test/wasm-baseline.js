// Runs in each test file's worker before the file: the embedded database (PGlite, PostgreSQL compiled to
// WebAssembly) runs on V8's baseline compiler only.
//
// By default V8 compiles WebAssembly quickly (Liftoff), then recompiles the functions that run often with its
// optimising compiler (TurboFan), on background threads. A long-lived service gains from that; a test file, which
// starts a database of its own and runs for seconds, pays for the recompilation on a 2-core machine and rarely lives
// to use it. Measured on 2 cores, alternately with and without, 2 pairs each: 13 integration files −16 % wall and
// −17 % CPU; the fuzz phase −12 to −27 % wall; the four slowest integration files, which mostly wait on processes of
// their own, 0 to −7 % wall. None was slower. (In one database, TurboFan was behind after 3,000 statements and ahead
// after 15,000.) `npm start` and the bench keep V8's defaults.
require('node:v8').setFlagsFromString('--liftoff-only');
