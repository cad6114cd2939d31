// The executable's entry: `tars …` (dist/tars.cjs, and the standalone binary).
import { run } from './main';

run();
