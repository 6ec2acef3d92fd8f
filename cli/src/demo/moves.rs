//! Moving an object between two of the demo's runtimes the way a host does
//! it (§3.3): `begin_relocation` on the source, then every frame carried
//! between the two until the move is done, the target's host restoring the
//! state when its runtime asks.

use zlink_core::{Capture, Inbound, ObjectKind, Outbound, OwnedObject, RelocationEvent, Runtime};

use super::{DemoResult, Unexpected};

/// A finished move.
pub(super) struct Moved {
    /// The target's tenure after its owner CAS.
    pub(super) owned: OwnedObject,
    /// Frames carried between the two runtimes.
    pub(super) frames: usize,
}

/// Moves `id` from `source` to `target` with an empty capture.
pub(super) fn relocate(
    source: &Runtime,
    target: &Runtime,
    kind: ObjectKind,
    id: &str,
) -> DemoResult<Moved> {
    let started = source.begin_relocation(kind, id, target.node_ref(), Capture::default())?;
    let nodes = [source, target];
    let mut queue: Queue<'_> = started.send.into_iter().map(|o| (source, o)).collect();
    let mut frames = 0;
    loop {
        while let Some((from, out)) = queue.pop_front() {
            // Frames for other nodes (command 42/44 to Session owners) are
            // not the demo's concern here.
            let Some(at) = nodes.into_iter().find(|n| n.identity().rid == out.to.rid) else {
                continue;
            };
            frames += 1;
            let action = at.on_frame(from.identity().rid, &out.bytes);
            step(at, action, kind, id, &mut queue)?;
            // Work a frame made due now (the owner CAS after the cutover)
            // starts on the timer surface, as a host's loop would start it.
            fire_due(at, kind, id, &mut queue)?;
        }
        // The owner CAS may still run on the store's I/O (Redis): a host's
        // timer loop comes back when `next_deadline` asks (every 10 ms).
        let soon = |n: &&Runtime| {
            n.next_deadline()
                .is_some_and(|d| d <= n.now().after(std::time::Duration::from_millis(20)))
        };
        if !nodes.iter().any(soon) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
        for at in nodes {
            fire_due(at, kind, id, &mut queue)?;
        }
    }
    let key = zlink_core::KeyRef { kind, id };
    let owned = target
        .owned(key)
        .ok_or_else(|| Unexpected(format!("the target should own {id} after the move")))?;
    Ok(Moved { owned, frames })
}

type Queue<'a> = std::collections::VecDeque<(&'a Runtime, Outbound)>;

/// Runs `at`'s work if its deadline has come.
fn fire_due<'a>(at: &'a Runtime, kind: ObjectKind, id: &str, queue: &mut Queue<'a>) -> DemoResult {
    if at.next_deadline().is_some_and(|d| d <= at.now()) {
        for action in at.on_timeout(at.now()) {
            step(at, action, kind, id, queue)?;
        }
    }
    Ok(())
}

/// What the demo's host does with one of `at`'s decisions during a move:
/// carries its frames, and restores the object when asked.
fn step<'a>(
    at: &'a Runtime,
    action: Inbound,
    kind: ObjectKind,
    id: &str,
    queue: &mut Queue<'a>,
) -> DemoResult {
    let Inbound::Relocation(action) = action else {
        return Ok(());
    };
    queue.extend(action.send.into_iter().map(|f| (at, f)));
    if matches!(action.event, RelocationEvent::Restore { .. }) {
        for f in at.relocation_restored(kind, id)? {
            queue.push_back((at, f));
        }
    }
    Ok(())
}
