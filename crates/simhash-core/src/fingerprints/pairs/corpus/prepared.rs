//! A batch grouped and its plan chosen, the tables to build listed: built in the
//! caller's thread or, one table per job, by the lookup threads.

use super::super::plan::{binomial, corpus_plan, corpus_plan_message, CorpusPlan};
use super::super::tables::{next_combination, Grouped, Table};
use super::super::Progress;
use super::index::Indexed;
use super::tables::{chunk_rows, BatchTables};

/// Working memory per batch row for a plan: the rows `(fp, id)` 16 B, the distinct
/// fingerprints 8 B and group offsets 4 B, the corpus chunks (a quarter of the batch each:
/// 16 B per batch row looked up in the caller's thread, about 18 B more per worker
/// thread), and with tables the group index 4 B and per table 8 B (the permuted
/// fingerprint), 4 B (its filter bits) and about 4 B of bucket index, counted as if every
/// row were distinct. A chunk has at least 65,536 rows (4 MB) and a table at least 256 KB
/// of offsets, whatever the batch. Measured peaks (the backend's VmHWM less its size
/// before) for a 1M batch at k = 3: 149 MB without threads, 179 MB with 2, 215 MB with 4.
pub fn bytes_per_batch_row(plan: CorpusPlan) -> usize {
    match plan {
        CorpusPlan::Blocks { m, a } => 48 + 16 * binomial(m, a) as usize,
        _ => 44,
    }
}

/// A batch grouped and its plan chosen, its tables not built yet: [`Prepared::build`]
/// builds them in the caller's thread, [`super::CorpusPairs::start`] in its worker threads.
pub struct Prepared {
    g: Grouped,
    k: u32,
    plan: CorpusPlan,
    tables: Vec<Table>,
}

impl Prepared {
    /// Groups the batch rows `(id, fp)` and chooses the plan (reported as a
    /// [`Progress::Phase`]). Panics if `k > 64`.
    pub fn new(batch: impl IntoIterator<Item = (i64, u64)>, k: u32, cb: &mut dyn FnMut(Progress)) -> Prepared {
        let g = Grouped::new(batch, cb);
        let plan = corpus_plan(g.distinct.len(), k);
        Self::with_plan(g, k, plan, cb)
    }

    fn with_plan(g: Grouped, k: u32, plan: CorpusPlan, cb: &mut dyn FnMut(Progress)) -> Prepared {
        let exact = match plan {
            CorpusPlan::Empty => g.rows.is_empty(),
            CorpusPlan::BruteForce => true,
            CorpusPlan::Blocks { m, a } => a >= 1 && a + k <= m && m <= 64,
        };
        assert!(exact, "{plan:?} would miss pairs at max distance {k}");
        let mut tables = Vec::new();
        if let CorpusPlan::Blocks { m, a } = plan {
            let mut key: Vec<usize> = (0..a as usize).collect();
            loop {
                tables.push(Table::new(m, &key));
                if !next_combination(&mut key, m as usize) {
                    break;
                }
            }
        }
        let p = Prepared { g, k, plan, tables };
        cb(Progress::Phase(p.describe()));
        p
    }

    /// The plan, as the [`Progress::Phase`] that reports it.
    pub fn describe(&self) -> String {
        corpus_plan_message(self.plan, self.g.distinct.len(), self.k)
    }

    /// Whether the batch has no rows.
    pub fn is_empty(&self) -> bool {
        self.g.rows.is_empty()
    }

    /// [`BatchTables::chunk_rows`] of the tables to come.
    pub fn chunk_rows(&self) -> usize {
        chunk_rows(self.g.distinct.len())
    }

    /// Tables to build.
    pub(super) fn table_count(&self) -> usize {
        self.tables.len()
    }

    /// Table `i`; `tmp` is scratch space, reused from table to table.
    pub(super) fn build_table(&self, i: usize, tmp: &mut Vec<u64>, cb: &mut dyn FnMut(Progress)) -> Indexed {
        Indexed::new(self.tables[i].clone(), &self.g.distinct, tmp, cb)
    }

    /// Builds the tables here.
    pub fn build(self, cb: &mut dyn FnMut(Progress)) -> BatchTables {
        let mut tmp = Vec::new();
        let built = (0..self.tables.len()).map(|i| self.build_table(i, &mut tmp, cb)).collect();
        self.finish(built)
    }

    /// The batch with its tables, `built[i]` the one of `self.tables[i]`.
    pub(super) fn finish(self, built: Vec<Indexed>) -> BatchTables {
        let Prepared { g, k, plan, .. } = self;
        BatchTables::assemble(g, k, plan, built)
    }
}

impl BatchTables {
    /// Groups the batch rows `(id, fp)`, chooses the plan (reported as a
    /// [`Progress::Phase`]) and builds its tables. Panics if `k > 64`.
    pub fn new(batch: impl IntoIterator<Item = (i64, u64)>, k: u32, cb: &mut dyn FnMut(Progress)) -> BatchTables {
        Prepared::new(batch, k, cb).build(cb)
    }

    /// [`BatchTables::new`] with the plan given, not chosen (tests and benchmarks compare
    /// plans). Panics if `k > 64` or the plan would miss pairs within `k`: `Empty` for a
    /// batch with rows, `Blocks { m, a }` unless `1 ≤ a ≤ m - k` and `m ≤ 64`.
    pub fn with_plan(
        batch: impl IntoIterator<Item = (i64, u64)>,
        k: u32,
        plan: CorpusPlan,
        cb: &mut dyn FnMut(Progress),
    ) -> BatchTables {
        assert!(k <= 64, "max distance {k} > 64");
        Prepared::with_plan(Grouped::new(batch, cb), k, plan, cb).build(cb)
    }
}
