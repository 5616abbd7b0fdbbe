// Every browser test file as one jest test file (test/support/grouped.ts says why).
import { runGrouped } from '../support/grouped';

runGrouped(__dirname, '.browser.test.ts');
