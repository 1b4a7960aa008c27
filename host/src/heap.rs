//! The interpreters' shared objects, and the reference cycles among them broken when a reading
//! ends.
//!
//! Both interpreters share what a program shares (a pointer's target, a Python list, the frame
//! a closure captures) through `Rc`, and the program read decides what points at what: `n.next
//! = &n;`, `a.append(a)`, a `def` stored in the module scope it closes over. `Rc` never frees a
//! cycle. An `Rc` cannot point at itself when it is made, so every cycle is closed by a write
//! into a mutable container (a `RefCell`: a variable's cell, a record, a buffer, a handle, a
//! frame's or scope's variables, a list, a dict, an object's attributes). Each such container
//! is therefore made through a [`Registry`], which keeps a `Weak` handle to it; when the
//! reading ends every one still alive is emptied ([`Sweep`]), which breaks every cycle, and
//! what only a cycle kept alive is freed.
//!
//! Why this and not another way to free cycles:
//! - `Weak` back-edges cannot be chosen: the program read decides which edge closes a cycle.
//! - A cycle collector (CPython's trial deletion) would need every value to list what it
//!   holds, and would run, and be tuned, during readings; an arena (values as indices into a
//!   per-reading table) would change every value type of both interpreters.
//! - A reading is bounded by its work budget, so the cycles it drops while it runs are bounded
//!   too; freeing them when it ends costs one pass over its containers.
//!
//! The C interpreter's values are `'static` and are made everywhere (copies, library calls,
//! the Python reader's tensors), so its registry is per thread, and tracks only while a
//! [`Reading`] is open: what was made outside a reading is its maker's, not the sweep's. The
//! Python interpreter's values borrow the script's syntax tree, which a thread-local cannot
//! hold; its interpreter owns a [`Registry`] of its own, swept when it is dropped.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::rc::{Rc, Weak};

/// A container a cycle can close through. Each container type implements it where it is
/// defined, so that the heap stays below both interpreters' values.
pub trait Sweep {
    /// Drops what it holds; it stays usable, empty.
    fn sweep(&self);
}

/// Below this many entries a registry is not pruned: pruning a few costs more than it frees.
const PRUNE_MIN: usize = 1024;

/// The containers made during a reading, by `Weak` handles.
pub struct Registry<'a> {
    tracked: RefCell<Vec<Weak<dyn Sweep + 'a>>>,
    /// The length at which dead handles are next dropped: twice the live ones at the last
    /// pruning, so that pruning costs O(1) per container made (amortised), and the handles
    /// kept stay within twice the containers alive (a dead handle still holds its `Rc`'s
    /// allocation).
    prune_at: Cell<usize>,
}

impl Default for Registry<'_> {
    fn default() -> Self {
        Registry {
            tracked: RefCell::new(Vec::new()),
            prune_at: Cell::new(PRUNE_MIN),
        }
    }
}

impl<'a> Registry<'a> {
    /// Tracks a container made now.
    pub fn track<T: Sweep + 'a>(&self, rc: Rc<T>) -> Rc<T> {
        let weak: Weak<T> = Rc::downgrade(&rc);
        let weak: Weak<dyn Sweep + 'a> = weak;
        let mut tracked = self.tracked.borrow_mut();
        if tracked.len() >= self.prune_at.get() {
            tracked.retain(|w| w.strong_count() > 0);
            self.prune_at.set((tracked.len() * 2).max(PRUNE_MIN));
        }
        tracked.push(weak);
        rc
    }

    /// Empties every tracked container still alive and stops tracking them; returns how many
    /// are alive after (held by something that is not a tracked container).
    pub fn sweep(&self) -> usize {
        // taken out first: what emptying drops must not find the registry borrowed
        let tracked = std::mem::take(&mut *self.tracked.borrow_mut());
        self.prune_at.set(PRUNE_MIN);
        for w in &tracked {
            if let Some(c) = w.upgrade() {
                c.sweep();
            }
        }
        tracked.iter().filter(|w| w.strong_count() > 0).count()
    }
}

impl Drop for Registry<'_> {
    fn drop(&mut self) {
        let left = self.sweep();
        // The thread's own registry is dropped when the thread ends, with the counter maybe
        // gone before it (and nothing to count: the last reading swept it).
        let _ = LEFT.try_with(|l| l.set(l.get() + left));
    }
}

thread_local! {
    /// The C interpreter's containers made by the reading open on this thread.
    static HEAP: Registry<'static> = Registry::default();
    /// How many readings are open on this thread (one inside another).
    static OPEN: Cell<usize> = const { Cell::new(0) };
    /// Containers alive after the sweeps of the outermost reading on this thread so far.
    static LEFT: Cell<usize> = const { Cell::new(0) };
}

/// A reading open on this thread: the C interpreter's containers made while it is are tracked,
/// and when the outermost one ends they are emptied. One opened inside it (a reader calling
/// another) leaves that to it: the outer reading still uses what the inner one made.
pub struct Reading {
    /// Not `Send`: it counts the readings of the thread it was opened on.
    _thread: PhantomData<*const ()>,
}

impl Reading {
    pub fn open() -> Reading {
        let was = OPEN.try_with(|o| o.replace(o.get() + 1)).unwrap_or(1);
        if was == 0 {
            let _ = LEFT.try_with(|l| l.set(0));
        }
        Reading {
            _thread: PhantomData,
        }
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        let open = OPEN.try_with(|o| {
            o.set(o.get().saturating_sub(1));
            o.get()
        });
        if open == Ok(0) {
            let left = HEAP.try_with(Registry::sweep).unwrap_or(0);
            let _ = LEFT.try_with(|l| l.set(l.get() + left));
        }
    }
}

/// The containers the last outermost reading on this thread made (in either interpreter)
/// that were still alive when it ended: zero unless something outside them holds one.
pub fn left_alive() -> usize {
    LEFT.try_with(Cell::get).unwrap_or(0)
}

fn track<T: Sweep + 'static>(rc: Rc<T>) -> Rc<T> {
    if OPEN.try_with(Cell::get).unwrap_or(0) > 0 {
        let _ = HEAP.try_with(|h| h.track(rc.clone()));
    }
    rc
}

/// A container of the C interpreter (a variable's cell, a record, a buffer, a handle), shared.
pub fn shared<T: 'static>(v: T) -> Rc<RefCell<T>>
where
    RefCell<T>: Sweep,
{
    track(Rc::new(RefCell::new(v)))
}

/// A container of the C interpreter that sweeps itself (a frame's variables), shared.
pub fn frame<T: Sweep + 'static>(f: T) -> Rc<T> {
    track(Rc::new(f))
}

/// Empties a `RefCell`, dropping what it held after the borrow ends (a drop must not find it
/// borrowed). One borrowed now is left as it is: nothing is, once a reading has ended.
pub fn empty<T>(c: &RefCell<T>, empty: T) {
    let old = match c.try_borrow_mut() {
        Ok(mut b) => std::mem::replace(&mut *b, empty),
        Err(_) => return,
    };
    drop(old);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::value::{Ptr, Value};

    #[test]
    fn a_cycle_is_freed_by_the_sweep_of_its_reading() {
        let weak = {
            let _reading = Reading::open();
            let c = shared(Value::Void);
            *c.borrow_mut() = Value::Ptr(Ptr::Cell(c.clone()));
            Rc::downgrade(&c)
        };
        assert_eq!(weak.strong_count(), 0);
        assert_eq!(left_alive(), 0);
    }

    #[test]
    fn an_inner_reading_does_not_sweep_what_the_outer_one_uses() {
        let _outer = Reading::open();
        let c = shared(Value::Int(7));
        {
            let _inner = Reading::open();
        }
        assert!(matches!(*c.borrow(), Value::Int(7)));
    }

    #[test]
    fn what_is_made_outside_a_reading_is_not_tracked() {
        let c = shared(Value::Int(7));
        {
            let _reading = Reading::open();
        }
        assert!(matches!(*c.borrow(), Value::Int(7)));
    }

    #[test]
    fn pruning_keeps_the_handles_within_twice_the_live_containers() {
        let r: Registry<'static> = Registry::default();
        let kept: Vec<_> = (0..10)
            .map(|_| r.track(Rc::new(RefCell::new(Value::Void))))
            .collect();
        for _ in 0..100_000 {
            r.track(Rc::new(RefCell::new(Value::Void)));
        }
        assert!(r.tracked.borrow().len() <= PRUNE_MIN + 1);
        let live = r
            .tracked
            .borrow()
            .iter()
            .filter(|w| w.strong_count() > 0)
            .count();
        assert_eq!(live, kept.len());
    }
}
