//! Readers whose recursion is bounded but deep (nesting limits of 200 levels, several frames
//! per level) run on a thread with a large stack, so that they do not overflow the small
//! stacks of test threads or unoptimised builds.

/// Stack size of a reader's thread.
const READER_STACK: usize = 64 << 20;

/// Runs `work` on a thread named `name` with a large stack; on the current stack when the
/// system refuses a thread. A panic of `work` is resumed in the caller.
pub(crate) fn on_large_stack<T: Send>(name: &str, work: impl Fn() -> T + Sync) -> T {
    std::thread::scope(|s| {
        match std::thread::Builder::new().name(name.into()).stack_size(READER_STACK).spawn_scoped(s, &work) {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => work(),
        }
    })
}
