// A page that loads tokenizers with the default entry point alone (patterns-app.js).
import { showPatternResults } from './patterns-app.js';

showPatternResults();
