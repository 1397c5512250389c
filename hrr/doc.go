// Package hrr implements holographic reduced representations for holomem:
// fixed-size phase vectors that encode a fact's tokens and entities so that
// "which facts are about X", "which facts involve X and Y" and "what is X
// connected to" can be answered by vector algebra, without an index.
//
// # Model
//
// A [Vector] is [Dim] = 1024 phases; component i stands for the unit
// complex number e^(iθ). An [Atom] is derived from SHA-256: phase 16·c+j is
// the big-endian uint16 at bytes 2j, 2j+1 of SHA-256(uint32be(c) || token),
// for c = 0..63, scaled to [0, 2π). One digest has 32 bytes, hence the
// counter. Atoms of distinct tokens are nearly orthogonal: their
// [Similarity] (the mean of cos(θa−θb)) is 0 with standard deviation
// 1/sqrt(2·Dim) ≈ 0.022, which [NoiseFloor] exposes.
//
//   - [Bind] adds phases (circular convolution for phasors) and [Unbind]
//     subtracts them; both are exact.
//   - [Bundle] superposes: it sums phasors per component and keeps the angle.
//     The magnitude is dropped, so a bundle is again a phase vector, but it no
//     longer knows how many terms it holds; a member's similarity falls as
//     about 0.89/sqrt(k) in a bundle of k equal terms.
//
// A fact is [EncodeFact]: the bundle of Bind(Atom(t), ROLE_CONTENT) for its
// distinct content tokens and Bind(Atom(e), ROLE_ENTITY) for its entities,
// the entities weighted by [EntityWeight] so that they keep half the power
// however long the content is. The roles keep the token "nginx" and the
// entity "nginx" apart.
//
// # Algebra
//
// All operations are pure functions over [Item]s (id and compact vector),
// deterministic, with ties broken by id:
//
//   - probe(X) = [Probe]([ProbeKey](X), ...): a fact's score is its
//     similarity to Bind(Atom(X), ROLE_ENTITY). A fact holding X scores
//     0.7 (one entity), 0.43 (two), 0.29 (four), 0.12 (sixteen); a fact not
//     holding X scores 0 ± 0.022.
//   - reason(X, Y, ...) = [Reason]: the minimum of the probe scores, so only
//     facts holding every entity stay above the noise.
//   - related(X) = [Related]: for each fact holding X, unbind ROLE_ENTITY from
//     that fact's own vector and clean the result up against the atoms of the
//     candidate entities the caller supplies; detections are counted and
//     summed per candidate.
//
// The upstream plugin this replaces unbound entities from a bundle of all
// facts, where thousands of terms drown the one sought: its probe, related
// and reason returned noise. Here every question is asked of one fact
// vector at a time (a few dozen terms), and the tests prove the answers at
// 2,000 facts: probe ranks every fact holding X above every fact that does
// not (smallest margin 0.19 against a floor of 0.11), reason returns exactly
// the intersection, related returns exactly the co-occurring entities with
// their shared-fact counts.
//
// Thresholds are [NoiseFloor]([DefaultSigmas]) = 5σ = 0.110: the largest of
// N unrelated scores is about sqrt(2·ln N)·σ (3.9σ at 2,000 facts, 4.8σ at
// 100,000), so at 5σ about one non-member in 30 probes over 100,000 facts
// slips through.
//
// # Storage
//
// [Marshal] stores a vector in [EncodedLen] = 1,025 bytes: [EncodingVersion]
// and one byte per phase (steps of 2π/256), against 8 KiB of float64 phases
// upstream. Measured on 800 probe scores (TestQuantization), 8-bit storage
// changes a similarity by 1.7e-4 on average and 6.9e-4 at most, 1/30 of
// one noise σ. A [Key] scans the bytes directly: 8 phase differences per
// 64-bit word with a SWAR byte-wise subtraction (mod 256 is mod 2π), and a
// 256-entry integer cosine table. Integer sums make scores exact and
// independent of summation order.
//
// HRR vectors are derived data: a new [EncodingVersion] or a change in
// [EntityWeight] means re-encoding from the facts' tokens. TestAtom_Golden
// pins the bits.
//
// # Capacity
//
// A 1024-phase superposition saturates at a few hundred items. Measured by
// BenchmarkCapacity: 2,000 bundles of k equal-weight atoms, 20 probe atoms
// each in 100 of them. d' is (mean member − mean non-member)/pooled σ,
// "perfect" the fraction of probes whose every member outranks every
// non-member, "r-precision" the fraction of members among the top 100.
//
//	k     member score  d'     perfect  r-precision
//	10    0.281         13.2   1.00     1.000
//	25    0.178          8.1   1.00     1.000
//	50    0.125          5.7   0.30     0.992
//	100   0.089          4.0   0.00     0.926
//	200   0.062          2.8   0.00     0.741
//	400   0.044          2.0   0.00     0.547
//
// The largest non-member score over 1,900 non-members is about 0.073 at
// every k. The theory, d' ≈ 0.886·sqrt(2·Dim/k), fits: perfect ranking at
// 2,000 facts needs d' of about 6, so k ≲ 40 equal terms. Facts are far
// below that for entities because [EncodeFact] gives entities half the
// power: with 20 content tokens, a fact's weakest entity scores 0.70, 0.43,
// 0.29, 0.16, 0.12 with 1, 2, 4, 8, 16 entities (TestEncodeFact_ManyEntities),
// so probe is reliable up to about 16 entities per fact and degrades
// beyond. Content tokens share the other half, so the recall channel
// ([QueryKey], [Relevance]) blurs for facts of more than a few dozen tokens:
// it is a noisy cosine over token sets, useful as one channel of four, not
// alone.
//
// # Performance
//
// Scoring is one pass over 1 KiB per fact with no allocation, about 0.4-0.6
// ns per phase: a probe over 10,000 facts costs 4-6 ms of one core
// (BenchmarkScore10k, BenchmarkProbe10k, cpu-ms/op measured on a shared
// 2-core VM; wall time there was inflated by other load). Callers with more
// cores can split the items and merge the results, since ranking is by
// (score, id). Related costs one score per (member fact, candidate): 273
// member facts × 299 candidates ≈ 50 ms. EncodeFact of a 20-token fact with
// cached atoms costs about 0.08 ms; an atom costs 64 SHA-256 blocks cold;
// the process-wide cache holds up to [AtomCacheSize] atoms (about 8 MiB).
//
// # Concurrency
//
// All functions and [Key] are safe for concurrent use; the atom cache is
// the only shared state and is locked.
package hrr
