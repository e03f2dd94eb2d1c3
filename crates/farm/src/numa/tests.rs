//! The node trees of `tests/fixtures/numa` (1, 2, 4 and 8 nodes) and `auto`'s rule on them.

use std::path::PathBuf;

use super::*;

const GIB: u64 = 1 << 30;

fn fixture(name: &str) -> NumaTopology {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/numa")
        .join(name);
    NumaTopology::read(&root).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn cpus(t: &NumaTopology) -> Vec<Vec<usize>> {
    t.nodes.iter().map(|n| n.cpus.clone()).collect()
}

#[test]
fn one_node() {
    let t = fixture("one");
    assert_eq!(cpus(&t), [vec![0, 1]]);
    let m = t.nodes[0].memory.unwrap();
    assert_eq!((m.total, m.free), (16 * GIB, 8 * GIB));
    assert_eq!(t.memory_node_of(0), Some(0));
}

#[test]
fn two_nodes_with_gaps_in_their_cpu_lists() {
    let t = fixture("two");
    assert_eq!(
        cpus(&t),
        [
            vec![0, 1, 2, 3, 8, 9, 10, 11],
            vec![4, 5, 6, 7, 12, 13, 14, 15]
        ]
    );
    assert_eq!(t.nodes[1].distance_to(0), 21);
    // Workers fill node 0 (CPUs 0-3, 8-11) before node 1.
    let p = Placement::node_by_node(&t, 10).unwrap();
    let cores: Vec<usize> = p.slots().iter().map(|s| s.core).collect();
    assert_eq!(cores, [0, 1, 2, 3, 8, 9, 10, 11, 4, 5]);
    assert_eq!(p.slot(8).node, 1);
}

#[test]
fn four_nodes_with_a_memoryless_node_and_a_cpuless_node() {
    let t = fixture("four");
    assert_eq!(t.nodes.len(), 4);
    // Node 2 has CPUs and no memory: its workers read node 1's (distance 12 < 20).
    assert_eq!(t.nodes[2].cpus, [8, 9, 10, 11]);
    assert_eq!(t.nodes[2].memory, None);
    assert_eq!(t.memory_node_of(2), Some(1));
    // Node 3 has memory and no CPU: no worker runs there.
    assert!(t.nodes[3].cpus.is_empty());
    assert!(t.nodes[3].memory.is_some());
    let p = Placement::node_by_node(&t, 12).unwrap();
    assert_eq!(p.memory_nodes(), [0, 1]);
    assert_eq!(p.slot(8).node, 2);
    assert_eq!(p.slot(8).memory_node, 1);
    let groups = p.replica_groups(1);
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[1].workers, [4, 5, 6, 7, 8, 9, 10, 11]);
    // The copy for node 1 is made by a thread on node 1, not on the memory-less node.
    assert_eq!(groups[1].core, 4);
}

#[test]
fn eight_nodes() {
    let t = fixture("eight");
    assert_eq!(t.nodes.len(), 8);
    assert_eq!(t.nodes[7].cpus, (56..64).collect::<Vec<_>>());
    assert_eq!(t.nodes[0].distance_to(1), 16);
    assert_eq!(t.nodes[0].distance_to(7), 22);
    let p = Placement::node_by_node(&t, 64).unwrap();
    assert_eq!(p.memory_nodes(), (0..8).collect::<Vec<_>>());
    assert_eq!(p.replica_groups(1).len(), 8);
}

#[test]
fn restricted_to_the_cpus_this_process_may_use() {
    let t = fixture("two").restricted_to(&[4, 5, 12]);
    assert!(t.nodes[0].cpus.is_empty());
    assert_eq!(t.nodes[1].cpus, [4, 5, 12]);
    let d = decide(NumaMode::Auto, Some(&t), 3, GIB, 1);
    assert_eq!(d.plan, NumaPlan::Off, "{}", d.reason);
    let none = fixture("two").restricted_to(&[100]);
    assert_eq!(Placement::node_by_node(&none, 2), None);
}

#[test]
fn a_tree_without_online_file_lists_its_node_directories() {
    let dir = std::env::temp_dir().join(format!("seqfarm-numa-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("node0")).unwrap();
    std::fs::create_dir_all(dir.join("node2")).unwrap();
    std::fs::write(dir.join("node2/cpulist"), "0-1\n").unwrap();
    let t = NumaTopology::read(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(t.nodes.iter().map(|n| n.id).collect::<Vec<_>>(), [0, 2]);
    assert_eq!(cpus(&t), [vec![], vec![0, 1]]);
    assert!(NumaTopology::read(std::path::Path::new("/nonexistent/numa")).is_err());
}

/// The plan's mode, as a word.
fn chosen(topology: &str, workers: usize, size: u64) -> &'static str {
    let t = fixture(topology);
    match decide(NumaMode::Auto, Some(&t), workers, size, 1).plan {
        NumaPlan::Off => "off",
        NumaPlan::Interleave { .. } => "interleave",
        NumaPlan::Replicate { .. } => "replicate",
    }
}

#[test]
fn auto_rule_on_fixture_topologies() {
    // One node: off, whatever the size.
    assert_eq!(chosen("one", 2, GIB / 2), "off");
    assert_eq!(chosen("one", 64, 4 * GIB), "off");
    // Two nodes with 40 + 8 and 30 + 2 GiB free. Eight workers fit on node 0: off.
    assert_eq!(chosen("two", 8, 4 * GIB), "off");
    // Sixteen use both: a human-sized index (3.5 GiB) is replicated...
    assert_eq!(chosen("two", 16, 3 * GIB + GIB / 2), "replicate");
    // ...one above half the free memory of a node is interleaved...
    assert_eq!(chosen("two", 16, 20 * GIB), "interleave");
    // ...and one larger than the free memory of both stays memory-mapped.
    assert_eq!(chosen("two", 16, 100 * GIB), "off");
    // Four nodes: the workers of the memory-less node 2 read node 1; node 3 is unused.
    assert_eq!(chosen("four", 12, 5 * GIB), "replicate");
    assert_eq!(chosen("four", 12, 15 * GIB), "interleave");
    // Eight nodes of 11 GiB free but node 5 (4 GiB): the busiest node decides.
    assert_eq!(chosen("eight", 40, 3 * GIB + GIB / 2), "replicate");
    assert_eq!(chosen("eight", 64, 3 * GIB + GIB / 2), "interleave");
    assert_eq!(chosen("eight", 64, 2 * GIB), "replicate");
}

#[test]
fn forced_modes_and_copies() {
    let t = fixture("one");
    let d = decide(NumaMode::Interleave, Some(&t), 2, GIB, 1);
    assert!(matches!(d.plan, NumaPlan::Interleave { ref nodes, .. } if nodes == &[0]));
    let d = decide(NumaMode::Replicate, Some(&t), 2, GIB, 2);
    let NumaPlan::Replicate { groups, .. } = d.plan else {
        panic!("{d:?}")
    };
    assert_eq!(groups.len(), 2);
    let d = decide(NumaMode::Auto, Some(&t), 2, GIB, 2);
    assert!(matches!(d.plan, NumaPlan::Replicate { .. }));
    assert_eq!(
        decide(NumaMode::Off, Some(&t), 2, GIB, 2).plan,
        NumaPlan::Off
    );
    assert_eq!(
        decide(NumaMode::Replicate, None, 2, GIB, 1).plan,
        NumaPlan::Off
    );
}

#[test]
fn modes_parse_and_print() {
    for mode in ["off", "interleave", "replicate", "auto"] {
        assert_eq!(mode.parse::<NumaMode>().unwrap().to_string(), mode);
    }
    assert!("all".parse::<NumaMode>().is_err());
    assert_eq!(NumaMode::default(), NumaMode::Auto);
}

#[test]
fn replicas_give_each_worker_its_groups_copy() {
    let t = fixture("one").restricted_to(&[0, 1]);
    let p = Placement::node_by_node(&t, 3).unwrap();
    let groups = p.replica_groups(2);
    let replicas = Replicas::build(&groups, |g| Ok::<_, ()>(g.workers.clone())).unwrap();
    assert_eq!(replicas.copies().len(), 2);
    assert_eq!(replicas.for_worker(0), &vec![0, 2]);
    assert_eq!(replicas.for_worker(1), &vec![1]);
    assert_eq!(replicas.for_worker(2), &vec![0, 2]);
    assert_eq!(Replicas::single(7).for_worker(5), &7);
    let failed = Replicas::build(&groups, |g| {
        if g.workers == [1] {
            Err("no memory")
        } else {
            Ok(())
        }
    });
    assert_eq!(failed.unwrap_err(), "no memory");
}

#[test]
fn a_farm_with_a_placement_tells_each_worker_its_core_and_node() {
    let Some(allowed) = core_affinity::get_core_ids() else {
        return;
    };
    let topology = NumaTopology {
        nodes: vec![NumaNode {
            id: 0,
            cpus: allowed.iter().map(|c| c.id).collect(),
            memory: None,
            distances: Vec::new(),
        }],
    };
    let placement = Placement::node_by_node(&topology, 2).unwrap();
    let infos = std::sync::Mutex::new(Vec::new());
    let config = crate::FarmConfig::new(2).placement(Some(placement.clone()));
    let mut once = true;
    crate::run(
        &config,
        || 0u8,
        &mut |_: &mut u8| -> Result<crate::Fill, ()> {
            Ok(if std::mem::take(&mut once) {
                crate::Fill::Task
            } else {
                crate::Fill::End
            })
        },
        |info: crate::WorkerInfo| {
            infos.lock().unwrap().push(info);
            Ok(|_: &mut u8| -> Result<(), ()> { Ok(()) })
        },
        &mut |_: &mut u8| -> Result<(), ()> { Ok(()) },
    )
    .unwrap();
    let mut infos = infos.into_inner().unwrap();
    infos.sort_by_key(|i| i.index);
    for info in infos {
        let slot = placement.slot(info.index);
        assert_eq!(info.node, Some(0));
        assert_eq!(info.core, Some(slot.core));
    }
}
