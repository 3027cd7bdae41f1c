//! Small random LAbS specifications over the whole language, for the differential tests
//! (`tests/random_differential.rs`). One seed gives one spec: `generate(seed)` is a pure
//! function of the seed, so a failure is reproduced from the seed alone.
//!
//! The generator knows the spec it is writing (which types hold which variables, which locals
//! a block has assigned so far, the agent ids), so that every spec parses and resolves; values
//! stay small (literals near 0, most assignments reduced `% k`) so that state spaces stay tiny,
//! except in "edge" specs, whose literals include values next to the 32-bit limits.

pub mod minimise;
pub mod routes;

/// A deterministic generator (SplitMix64): the same seed gives the same draws everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    /// A number in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }

    pub fn choose<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// An index into `weights`, drawn in proportion to them.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut r = self.below(total as usize) as u32;
        for (i, w) in weights.iter().enumerate() {
            if r < *w {
                return i;
            }
            r -= w;
        }
        weights.len() - 1
    }
}

/// A generated specification: its text and the extern values it needs (`k=2`).
#[derive(Clone, Debug)]
pub struct GenSpec {
    pub seed: u64,
    pub text: String,
    pub externs: Vec<String>,
    /// How many assignments write a value read from an agent of another type (`Gen::foreign_read`).
    pub foreign_reads: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Store {
    Env,
    Attr,
    Stig,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    store: Store,
    /// Array size; 0 for a scalar.
    len: usize,
}

#[derive(Clone, Debug)]
struct Type {
    name: String,
    count: usize,
    /// First agent id (types are laid out in byte-wise order of their names, semantics D1).
    first: usize,
    attrs: Vec<usize>,
    stigs: Vec<usize>,
}

#[derive(Clone, Debug)]
struct Stigmergy {
    name: String,
    vars: Vec<usize>,
}

/// A block local: a scalar, or a `pick` array of `len` ids.
#[derive(Clone, Debug)]
struct Local {
    name: String,
    pick: Option<usize>,
}

/// Where an expression is written: what it may read and which forms the parser admits there.
#[derive(Clone, Debug)]
enum Place {
    /// A process of agent type `ty` (`locals` assigned so far in the block; `quants` bound by an
    /// enclosing `count`/`exists`/`forall` statement).
    Proc { ty: usize, locals: Vec<Local>, quants: Vec<(String, usize)> },
    /// A link predicate or a `pick … where` filter: `x of c1`, `x of c2`.
    Link,
    /// A property or an assumption, with its quantified agents.
    Prop { quants: Vec<(String, usize)> },
}

struct Gen {
    rng: Rng,
    vars: Vec<Var>,
    types: Vec<Type>,
    stigs: Vec<Stigmergy>,
    n_agents: usize,
    /// The extern `_k` and its value, when the spec declares it.
    extern_k: Option<i64>,
    /// Literals may be values next to the 32-bit limits.
    edge: bool,
    /// Names of the process definitions callable from every agent (`system`), with whether they
    /// are being generated (a call to them is then recursion).
    globals: Vec<String>,
    quant_counter: usize,
    /// Assignments may write, unreduced, a value read from an agent of another type (`x <-
    /// (x of 3) - 1`): a leaf generated alone must not read, and so write, a value that agent
    /// never holds (the compositional LNT route). Drawn from a generator of its own, so that the
    /// specs without it are those of the seeds before it existed.
    foreign_reads: bool,
    foreign_reads_written: usize,
}

const EDGE_VALUES: [i64; 7] = [2147483647, 2147483646, -2147483647, -2147483646, 65536, 46341, 1073741824];

/// Generates the spec of `seed`.
pub fn generate(seed: u64) -> GenSpec {
    let mut g = Gen {
        rng: Rng::new(seed),
        vars: vec![],
        types: vec![],
        stigs: vec![],
        n_agents: 0,
        extern_k: None,
        edge: false,
        globals: vec![],
        quant_counter: 0,
        foreign_reads: Rng::new(seed ^ 0x0F0E_1A2D).chance(30),
        foreign_reads_written: 0,
    };
    let text = g.spec();
    let externs = g.extern_k.map(|k| vec![format!("k={k}")]).unwrap_or_default();
    GenSpec { seed, text, externs, foreign_reads: g.foreign_reads_written }
}

impl Gen {
    // ------------------------------------------------------------------ declarations

    fn spec(&mut self) -> String {
        self.edge = self.rng.chance(15);
        if self.rng.chance(15) {
            self.extern_k = Some(self.rng.int(1, 2));
        }
        self.declare_types();
        self.declare_vars();
        let mut out = String::from("system {\n");
        if self.extern_k.is_some() {
            out += "    extern = _k\n";
        }
        let env_vars: Vec<usize> = (0..self.vars.len()).filter(|&v| self.vars[v].store == Store::Env).collect();
        let env: Vec<String> = env_vars
            .into_iter()
            .map(|v| {
                let init = self.init(Store::Env);
                format!("{}: {init}", self.decl_name(v))
            })
            .collect();
        if !env.is_empty() {
            out += &format!("    environment = {}\n", env.join("; "));
        }
        // Spawn in a random order: ids follow the names, not this order (D1).
        let mut order: Vec<usize> = (0..self.types.len()).collect();
        for i in (1..order.len()).rev() {
            let j = self.rng.below(i + 1);
            order.swap(i, j);
        }
        let spawn: Vec<String> = order
            .iter()
            .map(|&t| {
                let ty = &self.types[t];
                let count = match self.extern_k {
                    Some(k) if k as usize == ty.count && self.rng.chance(30) => "_k".to_string(),
                    _ => ty.count.to_string(),
                };
                format!("{}: {count}", ty.name)
            })
            .collect();
        out += &format!("    spawn = {}\n", spawn.join(", "));
        let n_globals = self.rng.weighted(&[6, 3, 1]);
        self.globals = (0..n_globals).map(|i| format!("Proc{i}")).collect();
        for i in 0..n_globals {
            // A global process runs in whichever type calls it: write it for a type that has
            // every variable it may touch (its own reads are checked per caller by the resolver,
            // so it only reads the environment and plain constants, and writes the environment).
            let body = self.global_body(i);
            out += &format!("    {} = {body}\n", self.globals[i]);
        }
        out += "}\n";
        for s in 0..self.stigs.len() {
            out += &self.stigmergy_text(s);
        }
        for t in 0..self.types.len() {
            out += &self.agent_text(t);
        }
        if self.rng.chance(25) {
            let pred = self.qpred(true);
            out += &format!("\nassume {{\n    A0 = {pred}\n}}\n");
        }
        out += "\ncheck {\n";
        let n_props = 1 + self.rng.below(4);
        for i in 0..n_props {
            out += &format!("    P{i} = {}\n", self.property());
        }
        out += "}\n";
        out
    }

    fn declare_types(&mut self) {
        const NAMES: [&str; 6] = ["P", "Q", "Ag", "B", "Zed", "Mo"];
        let n_types = 1 + self.rng.weighted(&[4, 4, 1]);
        let mut names: Vec<&str> = NAMES.to_vec();
        let mut total = 0;
        for _ in 0..n_types {
            let i = self.rng.below(names.len());
            let name = names.remove(i).to_string();
            let max = (4usize.saturating_sub(total)).clamp(1, 3);
            let count = 1 + self.rng.weighted(&[5, 4, 1][..max]);
            total += count;
            self.types.push(Type { name, count, first: 0, attrs: vec![], stigs: vec![] });
        }
        let mut sorted: Vec<usize> = (0..self.types.len()).collect();
        sorted.sort_by(|&a, &b| self.types[a].name.as_bytes().cmp(self.types[b].name.as_bytes()));
        let mut next = 0;
        for t in sorted {
            self.types[t].first = next;
            next += self.types[t].count;
        }
        self.n_agents = next;
    }

    fn declare_vars(&mut self) {
        // The environment.
        for name in ["ev", "ew", "ea"] {
            if self.rng.chance(if name == "ev" { 70 } else { 35 }) {
                let len = if name == "ea" { 2 } else { 0 };
                self.vars.push(Var { name: name.into(), store: Store::Env, len });
            }
        }
        // Attributes: a pool of names; each type takes a subset, so that `x of e` may name an
        // agent whose type lacks `x`.
        let attr_names = [("x", 0), ("y", 0), ("xa", 2)];
        let mut attr_ids = vec![];
        for (name, len) in attr_names {
            if self.rng.chance(if name == "x" { 80 } else { 40 }) {
                attr_ids.push(self.vars.len());
                self.vars.push(Var { name: name.into(), store: Store::Attr, len });
            }
        }
        for &v in &attr_ids {
            let mut held = false;
            for t in 0..self.types.len() {
                if self.rng.chance(75) {
                    self.types[t].attrs.push(v);
                    held = true;
                }
            }
            // An attribute no type declares would be an undefined variable.
            if !held {
                let t = self.rng.below(self.types.len());
                self.types[t].attrs.push(v);
            }
        }
        for t in &mut self.types {
            t.attrs.sort();
        }
        // Stigmergies: one or two, with one to three tuples.
        let n_stigs = self.rng.weighted(&[4, 5, 1]);
        let mut pool = vec![("s", 0), ("u", 0), ("sa", 2), ("w", 0), ("r", 0)];
        for i in 0..n_stigs {
            let mut vars = vec![];
            let n_vars = 1 + self.rng.weighted(&[5, 3, 1]);
            for _ in 0..n_vars {
                if pool.is_empty() {
                    break;
                }
                let (name, len) = pool.remove(self.rng.below(pool.len()));
                vars.push(self.vars.len());
                self.vars.push(Var { name: name.into(), store: Store::Stig, len });
            }
            let s = self.stigs.len();
            self.stigs.push(Stigmergy { name: format!("S{i}"), vars });
            let mut held = false;
            for t in 0..self.types.len() {
                if self.rng.chance(70) {
                    self.types[t].stigs.push(s);
                    held = true;
                }
            }
            if !held {
                let t = self.rng.below(self.types.len());
                self.types[t].stigs.push(s);
            }
        }
    }

    fn decl_name(&self, v: usize) -> String {
        let var = &self.vars[v];
        if var.len > 0 { format!("{}[{}]", var.name, var.len) } else { var.name.clone() }
    }

    fn literal(&mut self) -> i64 {
        if self.edge && self.rng.chance(25) {
            let v = *self.rng.choose(&EDGE_VALUES);
            return v;
        }
        self.rng.int(-1, 3)
    }

    fn literal_text(&mut self) -> String {
        let v = self.literal();
        if let Some(k) = self.extern_k
            && v == k
            && self.rng.chance(40)
        {
            return "_k".into();
        }
        v.to_string()
    }

    /// An initialiser for a variable of `store` (`id` only for agents' variables).
    fn init(&mut self, store: Store) -> String {
        let agent = store != Store::Env;
        match self.rng.weighted(&[6, 2, 2, 2, if agent { 2 } else { 0 }, if self.edge { 2 } else { 0 }]) {
            0 => self.rng.int(0, 2).to_string(),
            1 => {
                let a = self.rng.int(-1, 1);
                format!("{a}..{}", a + self.rng.int(1, 3))
            }
            2 => {
                let a = self.rng.int(-1, 2);
                format!("[{a}, {}]", a + self.rng.int(1, 2))
            }
            3 => "undef".into(),
            4 => (*self.rng.choose(&["id", "id % 2", "id + 1", "2 - id"])).into(),
            _ => self.rng.choose(&EDGE_VALUES).to_string(),
        }
    }

    fn stigmergy_text(&mut self, s: usize) -> String {
        let link = self.bexpr(&Place::Link, 2);
        let mut out = format!("\nstigmergy {} {{\n    link = {link}\n", self.stigs[s].name);
        // Tuples: the variables in order, cut into groups sharing a timestamp.
        let vars = self.stigs[s].vars.clone();
        let mut i = 0;
        while i < vars.len() {
            let n = if vars.len() - i > 1 && self.rng.chance(40) { 2 } else { 1 };
            let names: Vec<String> = vars[i..i + n].iter().map(|&v| self.decl_name(v)).collect();
            let inits: Vec<String> = (0..n).map(|_| self.init(Store::Stig)).collect();
            out += &format!("    {}: {}\n", names.join(", "), inits.join(", "));
            i += n;
        }
        out + "}\n"
    }

    fn agent_text(&mut self, t: usize) -> String {
        let mut out = format!("\nagent {} {{\n", self.types[t].name);
        let attrs = self.types[t].attrs.clone();
        if !attrs.is_empty() {
            let decls: Vec<String> = attrs
                .iter()
                .map(|&v| {
                    let init = self.init(Store::Attr);
                    format!("{}: {init}", self.decl_name(v))
                })
                .collect();
            out += &format!("    interface = {}\n", decls.join("; "));
        }
        if !self.types[t].stigs.is_empty() {
            let names: Vec<String> = self.types[t].stigs.iter().map(|&s| self.stigs[s].name.clone()).collect();
            out += &format!("    stigmergies = {}\n", names.join("; "));
        }
        let locals_def = self.rng.chance(25);
        let body = match self.rng.weighted(&[6, 2, 2]) {
            0 => format!("({}); Behavior", self.proc(t, 3)),
            1 => self.proc(t, 3),
            _ => {
                if self.globals.is_empty() || locals_def {
                    "Loop".to_string()
                } else {
                    let g = self.rng.below(self.globals.len());
                    let call = self.globals[g].clone();
                    if self.rng.chance(50) { format!("({}); {call}", self.proc(t, 2)) } else { call }
                }
            }
        };
        out += &format!("    Behavior = {body}\n");
        if body == "Loop" || locals_def {
            // A local definition (recursive through `Behavior` or itself).
            let tail = if self.rng.chance(50) { "Loop" } else { "Behavior" };
            out += &format!("    Loop = ({}); {tail}\n", self.proc(t, 2));
        }
        out + "}\n"
    }

    /// A global process: it may be called by agents of any type, so it reads and writes only
    /// the environment and constants (an agent's variables are checked per caller).
    fn global_body(&mut self, i: usize) -> String {
        let envs: Vec<usize> = (0..self.vars.len()).filter(|&v| self.vars[v].store == Store::Env).collect();
        let step = if envs.is_empty() {
            "Skip".to_string()
        } else {
            let v = *self.rng.choose(&envs);
            let target = self.target_text(v, None);
            let rhs = match self.rng.below(3) {
                0 => format!("({} + 1) % 3", self.plain_read(v)),
                1 => format!("id % {}", self.rng.int(2, 3)),
                _ => format!("[0..{}]", self.rng.int(1, 3)),
            };
            let step = format!("{target} <-- {rhs}");
            if self.rng.chance(50) { format!("({} < 2 -> {step})", self.plain_read(v)) } else { step }
        };
        // Recursion: through itself, through another global (mutual), or none.
        let n = self.globals.len();
        match self.rng.below(3) {
            0 => format!("{step}; {}", self.globals[i]),
            1 if n > 1 => format!("{step}; {}", self.globals[(i + 1) % n]),
            _ => step,
        }
    }

    /// `v` or `v[0]`: a plain in-range read, for simple bounded steps.
    fn plain_read(&self, v: usize) -> String {
        if self.vars[v].len > 0 { format!("{}[0]", self.vars[v].name) } else { self.vars[v].name.clone() }
    }

    // ------------------------------------------------------------------ processes

    /// The variables an agent of type `ty` may read or write without `of`, by store.
    fn own_vars(&self, ty: usize, store: Store) -> Vec<usize> {
        match store {
            Store::Env => (0..self.vars.len()).filter(|&v| self.vars[v].store == Store::Env).collect(),
            Store::Attr => self.types[ty].attrs.clone(),
            Store::Stig => self.types[ty].stigs.iter().flat_map(|&s| self.stigs[s].vars.clone()).collect(),
        }
    }

    fn proc(&mut self, ty: usize, depth: u32) -> String {
        let leaf = depth == 0;
        let w: [u32; 9] = [
            if leaf { 0 } else { 3 }, // sequence
            if leaf { 0 } else { 3 }, // choice
            if leaf { 0 } else { 1 }, // parallel
            if leaf { 0 } else { 4 }, // guard
            5,                        // action
            4,                        // block
            1,                        // Skip
            if leaf { 0 } else { 1 }, // Nil, rare
            if self.globals.is_empty() { 0 } else { 1 },
        ];
        match self.rng.weighted(&w) {
            0 => format!("{}; {}", self.proc_item(ty, depth - 1), self.proc_item(ty, depth - 1)),
            1 => {
                let n = 2 + self.rng.weighted(&[3, 1]);
                let items: Vec<String> = (0..n).map(|_| self.proc_item(ty, depth - 1)).collect();
                items.join(" ++ ")
            }
            2 => format!("{} || {}", self.proc_item(ty, depth - 1), self.proc_item(ty, depth - 1)),
            3 => {
                let g = self.bexpr(&self.proc_place(ty), 2);
                let arrow = if self.rng.chance(30) { "=>" } else { "->" };
                format!("{g} {arrow} {}", self.proc_item(ty, depth - 1))
            }
            4 => self.action(ty),
            5 => self.block(ty),
            6 => "Skip".into(),
            7 => "Nil".into(),
            _ => self.rng.choose(&self.globals).clone(),
        }
    }

    /// A process as an operand of `;`, `++`, `||` or a guard: parenthesised unless atomic.
    fn proc_item(&mut self, ty: usize, depth: u32) -> String {
        let p = self.proc(ty, depth);
        if p.starts_with('{') && p.ends_with('}') || !p.contains(' ') { p } else { format!("({p})") }
    }

    fn proc_place(&self, ty: usize) -> Place {
        Place::Proc { ty, locals: vec![], quants: vec![] }
    }

    /// The stores agent type `ty` can assign.
    fn writable_stores(&self, ty: usize) -> Vec<Store> {
        [Store::Attr, Store::Stig, Store::Env].into_iter().filter(|&s| !self.own_vars(ty, s).is_empty()).collect()
    }

    /// An assignment `x, y <- e1, e2` of one store.
    fn assignment(&mut self, place: &Place) -> Option<String> {
        let Place::Proc { ty, .. } = place else { unreachable!("assignments are in processes") };
        let stores = self.writable_stores(*ty);
        if stores.is_empty() {
            return None;
        }
        let store = *self.rng.choose(&stores);
        let vars = self.own_vars(*ty, store);
        let n = if vars.len() > 1 && self.rng.chance(25) { 2 } else { 1 };
        let mut lhs: Vec<String> = vec![];
        for _ in 0..2 * n {
            if lhs.len() == n {
                break;
            }
            // The same array twice is allowed when its indices may differ at run time; the same
            // scalar or element twice is an error.
            let v = *self.rng.choose(&vars);
            let t = self.target_text(v, Some(place));
            if !lhs.contains(&t) {
                lhs.push(t);
            }
        }
        let rhs: Vec<String> = lhs.iter().map(|_| self.value(place)).collect();
        let arrow = match store {
            Store::Attr => "<-",
            Store::Stig => "<~",
            Store::Env => "<--",
        };
        Some(format!("{} {arrow} {}", lhs.join(", "), rhs.join(", ")))
    }

    fn action(&mut self, ty: usize) -> String {
        self.assignment(&self.proc_place(ty)).unwrap_or_else(|| "Skip".into())
    }

    /// An assignment target: `x` or `a[i]` (`i` may leave the range at run time).
    fn target_text(&mut self, v: usize, place: Option<&Place>) -> String {
        let var = self.vars[v].clone();
        if var.len == 0 {
            return var.name;
        }
        let index = match place {
            Some(p) => self.index(p, var.len),
            None => "0".into(),
        };
        format!("{}[{index}]", var.name)
    }

    /// An array index: mostly a constant in range, sometimes computed (may be out of range).
    fn index(&mut self, place: &Place, len: usize) -> String {
        if self.rng.chance(65) {
            return self.rng.below(len).to_string();
        }
        // Computed: mostly in range by construction, sometimes anything (a run-time error when
        // it leaves the range).
        let i = match (place, self.rng.weighted(&[3, 3, 3, 1])) {
            (Place::Proc { .. }, 0) => format!("[0..{len}]"),
            (_, 0 | 1) => format!("{} % {len}", paren(&self.expr(place, 0))),
            (_, 2) => format!("abs({}) % {len}", self.expr(place, 1)),
            _ => self.expr(place, 1),
        };
        // A constant index out of range is a static error, not a run-time one.
        if is_constant(&i) { self.rng.below(len).to_string() } else { i }
    }

    /// The value of an assignment: mostly reduced to a few values so that state spaces stay
    /// finite and small.
    fn value(&mut self, place: &Place) -> String {
        let e = self.expr(place, 2);
        match self.rng.weighted(&[6, 2, 2, if self.foreign_reads { 3 } else { 0 }]) {
            0 => format!("{} % {}", paren(&e), self.rng.int(2, 3)),
            1 => format!("min(max({e}, -1), 2)"),
            2 => e,
            _ => self.foreign_read(place).unwrap_or(e),
        }
    }

    /// `(v of K) + d`: a variable of a constant agent `K` of another type than the writer's,
    /// shifted, unreduced (the values differ per type when the types' initialisers or writes
    /// do).
    fn foreign_read(&mut self, place: &Place) -> Option<String> {
        let Place::Proc { ty, .. } = place else { return None };
        let mut options = vec![];
        for v in (0..self.vars.len()).filter(|&v| self.vars[v].store != Store::Env) {
            for t in (0..self.types.len()).filter(|&t| t != *ty && self.type_has(t, v)) {
                options.push((v, t));
            }
        }
        if options.is_empty() {
            return None;
        }
        let (v, t) = *self.rng.choose(&options);
        let k = self.types[t].first + self.rng.below(self.types[t].count);
        let idx = if self.vars[v].len > 0 { format!("[{}]", self.rng.below(self.vars[v].len)) } else { String::new() };
        let d = *self.rng.choose(&["- 1", "+ 1", "- 2"]);
        self.foreign_reads_written += 1;
        Some(format!("({}{idx} of {k}) {d}", self.vars[v].name))
    }

    fn block(&mut self, ty: usize) -> String {
        let mut place = Place::Proc { ty, locals: vec![], quants: vec![] };
        let n = 1 + self.rng.weighted(&[4, 4, 2, 1]);
        let mut stmts = vec![];
        for _ in 0..n {
            let s = self.statement(&mut place);
            stmts.push(s);
        }
        format!("{{ {} }}", stmts.join("; "))
    }

    fn locals(place: &Place) -> &[Local] {
        match place {
            Place::Proc { locals, .. } => locals,
            _ => &[],
        }
    }

    fn assign_local(place: &mut Place, name: &str, pick: Option<usize>) {
        if let Place::Proc { locals, .. } = place
            && !locals.iter().any(|l| l.name == name)
        {
            locals.push(Local { name: name.into(), pick });
        }
    }

    /// One statement of a block; records the locals it assigns.
    fn statement(&mut self, place: &mut Place) -> String {
        let Place::Proc { ty, .. } = *place else { unreachable!() };
        match self.rng.weighted(&[5, 3, 2, 2, 2]) {
            0 => self.assignment(place).unwrap_or_else(|| self.local_plain(place)),
            1 => self.local_plain(place),
            2 => {
                // `p[] := pick k [T] [where φ]`; a second pick into `p` keeps its length.
                let existing = Self::locals(place).iter().find(|l| l.pick.is_some()).cloned();
                let (name, k) = match existing {
                    Some(l) if self.rng.chance(60) => (l.name.clone(), l.pick.unwrap()),
                    _ => {
                        let taken = |n: &&str| Self::locals(place).iter().any(|l| l.name == *n);
                        let name = *["p", "pp", "p3"].iter().find(|n| !taken(n)).unwrap_or(&"p4");
                        (name.to_string(), 1 + self.rng.weighted(&[4, 1]))
                    }
                };
                let mut s = format!("{name}[] := pick {k}");
                if self.rng.chance(60) {
                    let t = self.rng.below(self.types.len());
                    s += &format!(" {}", self.types[t].name);
                }
                if self.rng.chance(50) {
                    s += &format!(" where {}", self.bexpr(&Place::Link, 1));
                }
                let _ = ty;
                Self::assign_local(place, &name, Some(k));
                s
            }
            3 => {
                let name = self.scalar_local_name(place);
                let kind = if self.rng.chance(50) { "exists" } else { "forall" };
                let n = 1 + self.rng.weighted(&[4, 1]);
                let (quants, inner) = self.quantified(place, n, kind);
                let body = self.bexpr(&inner, 1);
                Self::assign_local(place, &name, None);
                format!("{name} := {quants}{body}")
            }
            _ => {
                let name = self.scalar_local_name(place);
                let (_, inner) = self.quantified(place, 1, "count");
                let Place::Proc { quants, .. } = &inner else { unreachable!() };
                let (q, t) = quants.last().unwrap().clone();
                let body = self.bexpr(&inner, 1);
                Self::assign_local(place, &name, None);
                format!("{name} := count {} {q}, {body}", self.types[t].name)
            }
        }
    }

    /// A scalar local to write: a new one, or one already assigned.
    fn scalar_local_name(&mut self, place: &Place) -> String {
        let scalars: Vec<String> =
            Self::locals(place).iter().filter(|l| l.pick.is_none()).map(|l| l.name.clone()).collect();
        if !scalars.is_empty() && self.rng.chance(40) {
            return self.rng.choose(&scalars).clone();
        }
        let name = *self.rng.choose(&["l", "m", "n1"]);
        match Self::locals(place).iter().find(|l| l.name == name) {
            Some(l) if l.pick.is_some() => "l2".into(),
            _ => name.into(),
        }
    }

    fn local_plain(&mut self, place: &mut Place) -> String {
        let name = self.scalar_local_name(place);
        let e = if self.rng.chance(50) { self.expr(place, 2) } else { self.value(place) };
        Self::assign_local(place, &name, None);
        format!("{name} := {e}")
    }

    /// `n` quantifiers (`forall T q, exists U r, …` or the single `count` one, unwritten),
    /// and the place of their body.
    fn quantified(&mut self, place: &Place, n: usize, kind: &str) -> (String, Place) {
        let mut inner = place.clone();
        let mut text = String::new();
        for _ in 0..n {
            let t = self.rng.below(self.types.len());
            self.quant_counter += 1;
            let q = format!("q{}", self.quant_counter);
            let k = if kind == "count" {
                "count"
            } else if self.rng.chance(50) {
                "forall"
            } else {
                "exists"
            };
            if kind != "count" {
                text += &format!("{k} {} {q}, ", self.types[t].name);
            }
            match &mut inner {
                Place::Proc { quants, .. } | Place::Prop { quants } => quants.push((q, t)),
                Place::Link => unreachable!(),
            }
        }
        (text, inner)
    }

    // ------------------------------------------------------------------ expressions

    /// A Boolean expression (each compound operand parenthesised).
    fn bexpr(&mut self, place: &Place, depth: u32) -> String {
        let w = [if depth == 0 { 0 } else { 3 }, if depth == 0 { 0 } else { 2 }, 8, 1, 2];
        match self.rng.weighted(&w) {
            0 => {
                let op = if self.rng.chance(50) { "and" } else { "or" };
                format!("{} {op} {}", self.bexpr_operand(place, depth - 1), self.bexpr_operand(place, depth - 1))
            }
            1 => format!("!({})", self.bexpr(place, depth - 1)),
            2 => {
                let op = *self.rng.choose(&["=", "!=", "<", "<=", ">", ">="]);
                let l = self.expr(place, 1);
                let r = self.expr(place, 1);
                format!("{l} {op} {r}")
            }
            3 => (*self.rng.choose(&["true", "false"])).into(),
            _ => {
                // A negated comparison, the form guards often take.
                let l = self.expr(place, 1);
                let r = self.expr(place, 1);
                format!("!({l} = {r})")
            }
        }
    }

    fn bexpr_operand(&mut self, place: &Place, depth: u32) -> String {
        let b = self.bexpr(place, depth);
        if b.contains(" and ") || b.contains(" or ") { format!("({b})") } else { b }
    }

    /// An arithmetic expression; compound results come parenthesised, so they can be used as
    /// operands anywhere.
    fn expr(&mut self, place: &Place, depth: u32) -> String {
        let in_proc = matches!(place, Place::Proc { .. });
        let w: [u32; 8] = [
            6,                                                // atom
            if depth == 0 { 0 } else { 5 },                   // binary operator
            if depth == 0 { 0 } else { 1 },                   // abs
            if depth == 0 { 0 } else { 2 },                   // min / max
            if depth == 0 { 0 } else { 1 },                   // unary minus
            if depth == 0 || !in_proc { 0 } else { 1 },       // if … then … else
            if !in_proc { 0 } else { 2 },                     // [a..b]
            if matches!(place, Place::Link) { 0 } else { 3 }, // x of e
        ];
        match self.rng.weighted(&w) {
            0 => self.atom(place),
            1 => {
                let ops = ["+", "-", "*", "/", "%", ":"];
                let prop = matches!(place, Place::Prop { .. });
                // `/ % :` on variables are refused by the LNT encoding of properties: rare there.
                let n_ops = if prop && !self.rng.chance(10) { 3 } else { 6 };
                let op = *self.rng.choose(&ops[..n_ops]);
                let l = self.expr(place, depth - 1);
                let r = if matches!(op, "/" | "%" | ":") && self.rng.chance(85) {
                    (*self.rng.choose(&["2", "3", "-2", "1"])).to_string()
                } else {
                    self.expr(place, depth - 1)
                };
                format!("({l} {op} {r})")
            }
            2 => format!("abs({})", self.expr(place, depth - 1)),
            3 => {
                let f = if self.rng.chance(50) { "min" } else { "max" };
                format!("{f}({}, {})", self.expr(place, depth - 1), self.expr(place, depth - 1))
            }
            4 => format!("(-{})", self.expr(place, depth - 1)),
            5 => {
                let c = self.bexpr(place, 1);
                format!("(if {c} then {} else {})", self.expr(place, depth - 1), self.expr(place, depth - 1))
            }
            6 => {
                // Bounds computed from the state: the range may be empty (the step is disabled).
                let lo = if self.rng.chance(60) { self.rng.int(0, 1).to_string() } else { self.expr(place, 0) };
                let hi = if self.rng.chance(50) {
                    self.rng.int(1, 3).to_string()
                } else {
                    format!("{} + 1", self.expr(place, 0))
                };
                format!("[{lo}..{hi}]")
            }
            _ => self.remote_read(place),
        }
    }

    /// `(x of e)` in processes and properties.
    fn remote_read(&mut self, place: &Place) -> String {
        let candidates: Vec<usize> = (0..self.vars.len()).filter(|&v| self.vars[v].store != Store::Env).collect();
        if candidates.is_empty() {
            return self.atom(place);
        }
        match place {
            Place::Prop { quants } => {
                // A quantified agent whose type has the variable, or a constant id of such a type
                // (a property reading a slot its type lacks is refused by the LNT encoding).
                let mut options = vec![];
                for &v in &candidates {
                    for (q, t) in quants {
                        if self.type_has(*t, v) {
                            options.push((v, q.clone()));
                        }
                    }
                    for t in 0..self.types.len() {
                        if self.type_has(t, v) {
                            let id = self.types[t].first + self.rng.below(self.types[t].count);
                            options.push((v, id.to_string()));
                        }
                    }
                }
                if options.is_empty() {
                    return self.atom(place);
                }
                let (v, owner) = self.rng.choose(&options).clone();
                let idx = if self.vars[v].len > 0 {
                    format!("[{}]", self.rng.below(self.vars[v].len))
                } else {
                    String::new()
                };
                format!("{}{idx} of {owner}", self.vars[v].name)
            }
            Place::Proc { locals, quants, .. } => {
                let v = *self.rng.choose(&candidates);
                let n = self.n_agents;
                let picks: Vec<&Local> = locals.iter().filter(|l| l.pick.is_some()).collect();
                let w = [3, 2, 3, 2, if picks.is_empty() { 0 } else { 4 }, if quants.is_empty() { 0 } else { 4 }, 1, 1];
                let owner = match self.rng.weighted(&w) {
                    0 => self.rng.below(n).to_string(),
                    1 => "id".into(),
                    2 => format!("[0..{n}]"),
                    3 => format!("(id + 1) % {n}"),
                    4 => {
                        let l = self.rng.choose(&picks);
                        format!("{}[{}]", l.name, self.rng.below(l.pick.unwrap()))
                    }
                    5 => self.rng.choose(quants).0.clone(),
                    // Computed: in range by construction, or anything (an error out of range).
                    6 => format!("abs({}) % {n}", self.expr(place, 0)),
                    _ => self.expr(place, 1),
                };
                let idx = if self.vars[v].len > 0 {
                    format!("[{}]", self.index(place, self.vars[v].len))
                } else {
                    String::new()
                };
                format!("({}{idx} of {owner})", self.vars[v].name)
            }
            Place::Link => unreachable!(),
        }
    }

    fn type_has(&self, t: usize, v: usize) -> bool {
        match self.vars[v].store {
            Store::Env => true,
            Store::Attr => self.types[t].attrs.contains(&v),
            Store::Stig => self.types[t].stigs.iter().any(|&s| self.stigs[s].vars.contains(&v)),
        }
    }

    fn atom(&mut self, place: &Place) -> String {
        match place {
            Place::Link => {
                let vars: Vec<usize> = (0..self.vars.len()).filter(|&v| self.vars[v].store != Store::Env).collect();
                match self.rng.weighted(&[2, if vars.is_empty() { 0 } else { 6 }, 2]) {
                    0 => self.literal_text(),
                    1 => {
                        let v = *self.rng.choose(&vars);
                        let side = if self.rng.chance(50) { "c1" } else { "c2" };
                        let idx = if self.vars[v].len > 0 {
                            format!("[{}]", self.rng.below(self.vars[v].len))
                        } else {
                            String::new()
                        };
                        format!("{}{idx} of {side}", self.vars[v].name)
                    }
                    _ => format!("id of {}", if self.rng.chance(50) { "c1" } else { "c2" }),
                }
            }
            Place::Prop { quants } => {
                let envs: Vec<usize> = (0..self.vars.len()).filter(|&v| self.vars[v].store == Store::Env).collect();
                match self.rng.weighted(&[
                    3,
                    if envs.is_empty() { 0 } else { 4 },
                    4,
                    if quants.is_empty() { 0 } else { 1 },
                ]) {
                    0 => self.literal_text(),
                    1 => {
                        let v = *self.rng.choose(&envs);
                        let var = self.vars[v].clone();
                        if var.len == 0 {
                            return var.name;
                        }
                        // A constant index, or one read from a scalar (may be out of range).
                        let scalars: Vec<usize> = envs.iter().copied().filter(|&e| self.vars[e].len == 0).collect();
                        if !scalars.is_empty() && self.rng.chance(25) {
                            let s = *self.rng.choose(&scalars);
                            format!("{}[{}]", var.name, self.vars[s].name)
                        } else {
                            format!("{}[{}]", var.name, self.rng.below(var.len))
                        }
                    }
                    2 => self.remote_read(place),
                    _ => format!("id of {}", self.rng.choose(quants).0),
                }
            }
            Place::Proc { ty, locals, quants } => {
                let own: Vec<usize> =
                    [Store::Attr, Store::Stig, Store::Env].iter().flat_map(|&s| self.own_vars(*ty, s)).collect();
                let w = [
                    3,
                    if own.is_empty() { 0 } else { 8 },
                    2,
                    if locals.is_empty() { 0 } else { 4 },
                    if quants.is_empty() { 0 } else { 2 },
                ];
                match self.rng.weighted(&w) {
                    0 => self.literal_text(),
                    1 => {
                        let v = *self.rng.choose(&own);
                        let var = self.vars[v].clone();
                        if var.len == 0 { var.name } else { format!("{}[{}]", var.name, self.index(place, var.len)) }
                    }
                    2 => "id".into(),
                    3 => {
                        let l = self.rng.choose(locals).clone();
                        match l.pick {
                            None => l.name,
                            // Mostly in range; `p[1]` of a one-element pick is out of range.
                            Some(k) => {
                                format!("{}[{}]", l.name, if self.rng.chance(90) { self.rng.below(k) } else { k })
                            }
                        }
                    }
                    _ => self.rng.choose(quants).0.clone(),
                }
            }
        }
    }

    // ------------------------------------------------------------------ properties

    /// `forall T a, exists U b, body` (an assumption reads only initial values).
    fn qpred(&mut self, _assume: bool) -> String {
        let n = self.rng.weighted(&[3, 4, 2]);
        let kind = "quant";
        let (quants, place) = self.quantified(&Place::Prop { quants: vec![] }, n, kind);
        let body = self.bexpr(&place, 2);
        format!("{quants}{body}")
    }

    fn property(&mut self) -> String {
        match self.rng.weighted(&[5, 3, 1, 2, 2, 1, 1, 2]) {
            0 => format!("always {}", self.qpred(false)),
            1 => format!("finally {}", self.qpred(false)),
            2 => format!("eventually {}", self.qpred(false)),
            3 => format!("fairly {}", self.qpred(false)),
            4 => format!("fairly_inf {}", self.qpred(false)),
            7 => {
                // Linear-time formulas (D14): `until` binds tighter than the `and`/`or` of a
                // predicate, so an operand of `until` is parenthesised; a quantified predicate
                // extends as far as it can, so only the last operand of `implies` may be one.
                let (_, place) = self.quantified(&Place::Prop { quants: vec![] }, 0, "quant");
                let a = format!("({})", self.bexpr(&place, 2));
                let b = self.qpred(false);
                match self.rng.below(5) {
                    0 => format!("finally always {b}"),
                    1 => format!("always finally {b}"),
                    2 => format!("always ({a} implies finally {b})"),
                    3 => format!("{a} until ({b})"),
                    _ => format!("{a} unless ({b})"),
                }
            }
            k => {
                // Scoped patterns.
                let (kw, close) = if k == 5 { ("between", "and") } else { ("from", "until") };
                let q = self.qpred(false);
                let r = self.qpred(false);
                let pattern = match self.rng.below(3) {
                    0 => "thereIs".to_string(),
                    1 => "always".to_string(),
                    _ => format!("{} precedes", self.qpred(false)),
                };
                format!("{kw} ({q}) {close} ({r}), {pattern} {}", self.qpred(false))
            }
        }
    }
}

/// Whether generated expression text reads nothing (the resolver folds it to a constant).
fn is_constant(e: &str) -> bool {
    let words = e.split(|c: char| !c.is_ascii_alphanumeric() && c != '_');
    !e.contains('[')
        && words
            .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic()))
            .all(|w| matches!(w, "abs" | "min" | "max"))
}

/// `e` as an operand: parenthesised unless it is a single token or already enclosed.
fn paren(e: &str) -> String {
    let enclosed = e.starts_with('(') && e.ends_with(')') && balanced_inner(e);
    if enclosed || !e.contains(' ') { e.to_string() } else { format!("({e})") }
}

/// Whether the outer parentheses of `e` match each other (`(a) + (b)` is not enclosed).
fn balanced_inner(e: &str) -> bool {
    let mut depth = 0;
    for (i, c) in e.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 < e.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}
