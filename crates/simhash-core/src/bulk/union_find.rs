//! The one union-find of the crate: all pairs' clusters join groups of identical
//! fingerprints with it, and [`crate::fingerprints::shard::Components`] joins ids gathered from shards.

/// Union-find over nodes `0..len` with path halving; a union keeps the smaller root, so
/// the result does not depend on the order of the unions.
#[derive(Default)]
pub(crate) struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    /// `n` nodes, each alone.
    pub(crate) fn new(n: usize) -> UnionFind {
        UnionFind { parent: (0..n as u32).collect() }
    }

    /// A new node, alone; its number.
    pub(crate) fn push(&mut self) -> u32 {
        let i = self.parent.len() as u32;
        self.parent.push(i);
        i
    }

    pub(crate) fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = p;
            x = p;
        }
        x
    }

    /// Joins the components of `a` and `b`.
    pub(crate) fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }

    /// `(component, id)` for every id of a component of two or more ids, `component` its
    /// smallest id, in node order (unsorted); node `i` holds the ids `ids(i)`. Calls
    /// `tick` every 2^16 nodes. Memory: 12 B per node (smallest id and size per root).
    pub(crate) fn components<I: ExactSizeIterator<Item = i64>>(
        &mut self,
        ids: impl Fn(usize) -> I,
        tick: &mut dyn FnMut(),
    ) -> Vec<(i64, i64)> {
        let n = self.parent.len();
        // Per root: smallest id and number of ids (0 = no entry yet).
        let mut min_id = vec![i64::MAX; n];
        let mut size = vec![0u32; n];
        for i in 0..n {
            let r = self.find(i as u32) as usize;
            let node = ids(i);
            size[r] = size[r].saturating_add(node.len() as u32);
            min_id[r] = node.fold(min_id[r], i64::min);
        }
        let mut out = Vec::new();
        for i in 0..n {
            let r = self.find(i as u32) as usize;
            if size[r] >= 2 {
                out.extend(ids(i).map(|id| (min_id[r], id)));
            }
            if i % (1 << 16) == 0 {
                tick();
            }
        }
        out
    }
}
