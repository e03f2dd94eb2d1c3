//! Optical duplicates: a read's tile and pixel coordinates from the last three
//! `:`-separated fields of its name (Picard's default `READ_NAME_REGEX`), and the count
//! of duplicates of a set lying within the pixel distance of each other.

use super::ends::{Location, ReadEnds, FR, RF};

/// Picard's `OPTICAL_DUPLICATE_PIXEL_DISTANCE` default.
pub const DEFAULT_PIXEL_DISTANCE: i32 = 100;
/// Sets larger than this are not searched for optical duplicates (Picard's
/// `MAX_OPTICAL_DUPLICATE_SET_SIZE`).
const MAX_SET_SIZE: usize = 300_000;

/// Tile, x and y of a read named `...:TILE:X:Y` with 5 or 7 `:`-separated fields, as
/// Picard's fast parser reads them: each field's leading digits (after an optional `-`),
/// tile and coordinates kept in 16 bits; `None` when the name does not fit.
pub fn name_location(name: &[u8]) -> Option<(i16, i16, i16)> {
    let mut tokens = [0i32; 3];
    let mut token = 2usize;
    let mut fields = 0;
    let mut end = name.len();
    let mut i = name.len();
    let mut taken = 0;
    while i > 0 && taken < 3 {
        i -= 1;
        if name[i] == b':' || i == 0 {
            fields += 1;
            let start = if i == 0 { 0 } else { i + 1 };
            tokens[token] = leading_int(&name[start..end])?;
            token = token.wrapping_sub(1);
            taken += 1;
            end = i;
        }
    }
    while i > 0 {
        i -= 1;
        if name[i] == b':' || i == 0 {
            fields += 1;
        }
    }
    if fields != 5 && fields != 7 {
        return None;
    }
    Some((tokens[0] as i16, tokens[1] as i16, tokens[2] as i16))
}

/// The integer at the start of `text` (an optional `-`, then digits; Java's `int`
/// arithmetic); `None` without a digit.
fn leading_int(text: &[u8]) -> Option<i32> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let mut value = 0i32;
    let mut any = false;
    for &c in digits.iter().take_while(|c| c.is_ascii_digit()) {
        value = value.wrapping_mul(10).wrapping_add(i32::from(c - b'0'));
        any = true;
    }
    any.then_some(if negative {
        value.wrapping_neg()
    } else {
        value
    })
}

/// The location of a read named `name` in read group `read_group` (its place among the
/// header's `@RG` lines), or [`Location::NONE`].
pub fn read_location(name: &[u8], read_group: i16) -> Location {
    match name_location(name) {
        Some((tile, x, y)) => Location {
            read_group,
            tile,
            x,
            y,
        },
        None => Location::NONE,
    }
}

/// The optical duplicates among pairs of one duplicate set: pairs read in opposite
/// orientations by their first segment (FR and RF) are looked at apart.
pub fn count_optical(set: &[ReadEnds], distance: i32) -> usize {
    let has = |o: u8| set.iter().any(|e| e.optical_orientation == o as i8);
    if has(FR) && has(RF) {
        let part = |o: u8| -> Vec<Location> {
            set.iter()
                .filter(|e| e.optical_orientation == o as i8)
                .map(|e| e.location)
                .collect()
        };
        count_clustered(&part(FR), distance) + count_clustered(&part(RF), distance)
    } else {
        let all: Vec<Location> = set.iter().map(|e| e.location).collect();
        count_clustered(&all, distance)
    }
}

/// Reads joined by chains of close pairs (within `distance` pixels in x and y, on one
/// tile of one read group) form clusters; all but one read of each cluster are optical
/// duplicates. Reads are swept in x order per tile, so only reads within `distance` in
/// x are compared.
fn count_clustered(locations: &[Location], distance: i32) -> usize {
    let n = locations.len();
    if !(2..=MAX_SET_SIZE).contains(&n) {
        return 0;
    }
    let tile_of = |l: &Location| (l.read_group, l.tile);
    let mut order: Vec<usize> = (0..n).filter(|&i| locations[i].is_known()).collect();
    order.sort_unstable_by_key(|&i| (tile_of(&locations[i]), locations[i].x));
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut joined = 0;
    for (at, &i) in order.iter().enumerate() {
        let a = &locations[i];
        for &j in &order[at + 1..] {
            let b = &locations[j];
            if tile_of(b) != tile_of(a) || i32::from(b.x) - i32::from(a.x) > distance {
                break;
            }
            if (i32::from(a.y) - i32::from(b.y)).abs() <= distance {
                let (ra, rb) = (root(&mut parent, i), root(&mut parent, j));
                if ra != rb {
                    parent[ra] = rb;
                    joined += 1;
                }
            }
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_five_or_seven_fields_give_a_location() {
        assert_eq!(
            name_location(b"M1:1:FC:1:1101:1200:3400"),
            Some((1101, 1200, 3400))
        );
        assert_eq!(name_location(b"HWI:3:1101:55:77"), Some((1101, 55, 77)));
        assert_eq!(name_location(b"a:1101:55:77"), None);
        assert_eq!(name_location(b"SRR642636.77815894"), None);
        assert_eq!(name_location(b"a:b:1101:55x:77/1"), Some((1101, 55, 77)));
        assert_eq!(name_location(b"a:b:1101:x55:77"), None);
        // Coordinates past 16 bits wrap as Picard's short fields do.
        assert_eq!(
            name_location(b"a:b:1:40000:2"),
            Some((1, 40000u16 as i16, 2))
        );
    }

    fn at(tile: i16, x: i16, y: i16) -> Location {
        Location {
            read_group: 0,
            tile,
            x,
            y,
        }
    }

    #[test]
    fn chains_of_close_reads_are_one_cluster() {
        let reads = [at(1, 0, 0), at(1, 90, 0), at(1, 180, 0), at(2, 0, 0)];
        assert_eq!(count_clustered(&reads, 100), 2);
        assert_eq!(count_clustered(&reads, 50), 0);
        assert_eq!(count_clustered(&[at(1, 0, 0), Location::NONE], 100), 0);
        // Close in x but not in y, and a chain closed through a read further in x.
        let reads = [at(1, 0, 0), at(1, 10, 500), at(1, 60, 90), at(1, 150, 60)];
        assert_eq!(count_clustered(&reads, 100), 2);
        let other_group = Location {
            read_group: 1,
            ..at(1, 0, 0)
        };
        assert_eq!(count_clustered(&[at(1, 0, 0), other_group], 100), 0);
    }

    /// Clusters by comparing every pair, as Picard's graph does.
    fn brute_force(locations: &[Location], distance: i32) -> usize {
        let close = |a: &Location, b: &Location| {
            a.is_known()
                && b.is_known()
                && (a.read_group, a.tile) == (b.read_group, b.tile)
                && (i32::from(a.x) - i32::from(b.x)).abs() <= distance
                && (i32::from(a.y) - i32::from(b.y)).abs() <= distance
        };
        let n = locations.len();
        let mut cluster: Vec<usize> = (0..n).collect();
        for i in 0..n {
            for j in i + 1..n {
                if close(&locations[i], &locations[j]) && cluster[i] != cluster[j] {
                    let (from, to) = (cluster[j], cluster[i]);
                    cluster
                        .iter_mut()
                        .filter(|c| **c == from)
                        .for_each(|c| *c = to);
                }
            }
        }
        let mut distinct = cluster.clone();
        distinct.sort_unstable();
        distinct.dedup();
        n - distinct.len()
    }

    #[test]
    fn the_sweep_finds_the_clusters_of_every_pair() {
        let mut state = 7u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % m) as i16
        };
        for _ in 0..200 {
            let n = 2 + next(30) as usize;
            let locations: Vec<Location> = (0..n)
                .map(|_| match next(10) {
                    0 => Location::NONE,
                    _ => Location {
                        read_group: next(2),
                        tile: 1 + next(2),
                        x: next(600),
                        y: next(600),
                    },
                })
                .collect();
            for distance in [-1, 0, 50, 100, 300] {
                assert_eq!(
                    count_clustered(&locations, distance),
                    brute_force(&locations, distance)
                );
            }
        }
    }
}
