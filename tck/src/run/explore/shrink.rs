//! Delta debugging: the shortest sequence found that still shows a failure. Chunks of the
//! sequence are removed, halves first, then quarters and so on down to single operations;
//! a shorter sequence that still fails is kept and the search goes on from it, until no chunk
//! can go (a fixed point) or the budget is spent.

use std::future::Future;

/// What a try of a candidate showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tried {
    /// It still fails.
    Fails,
    /// It does not.
    Passes,
    /// It could not be tried: the budget is spent.
    Spent,
}

/// The shortest sequence found from `items` for which `still_fails` says [`Tried::Fails`]
/// (`items` itself is taken to fail), and whether the search reached its fixed point (false:
/// the budget ran out first, and a shorter one may exist).
pub async fn shrink<T, F, Fut>(items: Vec<T>, mut still_fails: F) -> (Vec<T>, bool)
where
    T: Clone,
    F: FnMut(Vec<T>) -> Fut,
    Fut: Future<Output = Tried>,
{
    let mut current = items;
    let mut chunks = 2usize;
    while current.len() >= 2 {
        let size = current.len().div_ceil(chunks);
        let mut reduced = false;
        for start in (0..current.len()).step_by(size) {
            let candidate: Vec<T> = (current.iter().enumerate())
                .filter(|(i, _)| *i < start || *i >= start + size)
                .map(|(_, item)| item.clone())
                .collect();
            match still_fails(candidate.clone()).await {
                Tried::Fails => {
                    current = candidate;
                    chunks = (chunks - 1).max(2);
                    reduced = true;
                    break;
                }
                Tried::Passes => {}
                Tried::Spent => return (current, false),
            }
        }
        if !reduced {
            if chunks >= current.len() {
                break;
            }
            chunks = (chunks * 2).min(current.len());
        }
    }
    (current, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
            .block_on(future)
    }

    #[test]
    fn the_shortest_failing_subsequence_is_found() {
        // Fails when it holds 3, then 7 later on, and 9 anywhere.
        let fails = |items: &[u32]| {
            let three = items.iter().position(|i| *i == 3);
            let seven = items.iter().rposition(|i| *i == 7);
            matches!((three, seven), (Some(a), Some(b)) if a < b) && items.contains(&9)
        };
        let items: Vec<u32> = (0..20).collect();
        let mut tries = 0;
        let (shrunk, done) = block_on(shrink(items, |candidate| {
            tries += 1;
            let tried = if fails(&candidate) {
                Tried::Fails
            } else {
                Tried::Passes
            };
            std::future::ready(tried)
        }));
        assert_eq!(shrunk, vec![3, 7, 9]);
        assert!(done);
        assert!(tries < 60, "{tries} tries");
    }

    #[test]
    fn a_spent_budget_keeps_the_best_so_far() {
        let mut left = 3;
        let (shrunk, done) = block_on(shrink((0..16).collect::<Vec<u32>>(), |candidate| {
            left -= 1;
            let tried = match (left, candidate.contains(&5)) {
                (0, _) => Tried::Spent,
                (_, true) => Tried::Fails,
                (_, false) => Tried::Passes,
            };
            std::future::ready(tried)
        }));
        assert!(!done);
        assert!(shrunk.contains(&5) && shrunk.len() < 16, "{shrunk:?}");
    }
}
