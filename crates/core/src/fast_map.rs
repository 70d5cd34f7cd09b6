//! Hash maps for the hot paths of discovery.

/// A hash map for the hot paths of discovery: foldhash, randomly seeded like
/// std's `RandomState`, and several times faster on short keys and paths.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// The set of [`FastMap`].
pub(crate) type FastSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
