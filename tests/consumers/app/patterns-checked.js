// The same page with the ReDoS analysis opted in: every pattern is analysed (patterns-app.js).
import 'attention-wasm/tokenizer-check';
import { showPatternResults } from './patterns-app.js';

showPatternResults();
