// A JS library for the threaded modules' link (--js-library): Emscripten 3.1.69's
// _emscripten_thread_mailbox_await (src/library_pthread.js), unchanged but for a way to stop it.
//
// On the main thread the original keeps one Atomics.waitAsync pending for the mailbox at all
// times: each notification's checkMailbox arms the next wait. That pending promise holds the
// glue's Module, and with it the whole shared wasm memory, for as long as the process lives, so a
// threaded instance was never collected, even after dispose() ended its Workers (measured: +512
// MiB of RSS per init() of a 512 MiB heap, src/js/index.js). Module.awCloseMailbox() (called by
// dispose(), once no Worker is left to post to the main thread) stops re-arming and wakes the
// pending wait; a main thread without Workers still runs what it proxies to itself through
// _emscripten_notify_mailbox_postmessage's setTimeout, which does not use this wait.
addToLibrary({
  _emscripten_thread_mailbox_await__deps: ['$checkMailbox'],
  _emscripten_thread_mailbox_await: (pthread_ptr) => {
    if (typeof Atomics.waitAsync === 'function' && !Module['awMailboxClosed']) {
      // Wait on the pthread's initial self-pointer field (the original's comment).
      var wait = Atomics.waitAsync(HEAP32, {{{ getHeapOffset('pthread_ptr', 'i32') }}}, pthread_ptr);
      wait.value.then(checkMailbox);
      var waitingAsync = pthread_ptr + {{{ C_STRUCTS.pthread.waiting_async }}};
      Atomics.store(HEAP32, {{{ getHeapOffset('waitingAsync', 'i32') }}}, 1);
      if (!ENVIRONMENT_IS_PTHREAD && !Module['awCloseMailbox']) {
        Module['awCloseMailbox'] = () => {
          Module['awMailboxClosed'] = true;
          // senders (none are left) would post a message instead of notifying
          Atomics.store(HEAP32, {{{ getHeapOffset('waitingAsync', 'i32') }}}, 0);
          Atomics.notify(HEAP32, {{{ getHeapOffset('pthread_ptr', 'i32') }}});
        };
      }
    }
    // Without Atomics.waitAsync, senders always post a message: nothing to wait on (the original).
  },
});
