//! Locks that outlive a panic: a thread that panicked while holding one leaves data that
//! every writer here keeps consistent at each step, so the next holder takes it as it is
//! rather than turning one failed call into a poisoned server.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locking that ignores poisoning.
pub trait Unpoisoned<T: ?Sized> {
    /// The guard: `lock`, or `write` of a read-write lock.
    type Guard<'a>
    where
        Self: 'a;

    /// The lock, taken whether poisoned or not.
    fn locked(&self) -> Self::Guard<'_>;
}

impl<T: ?Sized> Unpoisoned<T> for Mutex<T> {
    type Guard<'a>
        = MutexGuard<'a, T>
    where
        Self: 'a;

    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<T: ?Sized> Unpoisoned<T> for RwLock<T> {
    type Guard<'a>
        = RwLockWriteGuard<'a, T>
    where
        Self: 'a;

    fn locked(&self) -> RwLockWriteGuard<'_, T> {
        self.write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Reading a read-write lock, poisoned or not.
pub fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
