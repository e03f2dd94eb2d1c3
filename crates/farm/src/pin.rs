//! Pinning threads to cores.

/// Number of cores this process may run on (at least 1).
pub fn available_cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Pins the calling thread to core `index mod cores`; returns the core id on success.
pub(crate) fn pin_current(index: usize) -> Option<usize> {
    let cores = core_affinity::get_core_ids()?;
    if cores.is_empty() {
        return None;
    }
    let core = cores[index % cores.len()];
    core_affinity::set_for_current(core).then_some(core.id)
}

/// Pins the calling thread to core `core`; returns it on success.
pub(crate) fn pin_to(core: usize) -> Option<usize> {
    core_affinity::set_for_current(core_affinity::CoreId { id: core }).then_some(core)
}
