// `attention-wasm/threads`: the same API as `attention-wasm`; its init() also reaches the
// threaded build in browsers (InitOptions.threads).
export * from './index.js';
