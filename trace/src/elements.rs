//! The elements the insights name: the trace gives backend node ids, the agent uses
//! snapshot uids. [`backend_ids`] lists the ids to ask the page about; [`name`] writes
//! the uids found back into the report.

use std::collections::HashMap;

use crate::Report;

/// Calls `f` with every element of the report's last load: its backend node id and
/// its uid slot. Only the last load's document can still be in the tab: the earlier
/// ones' are gone, and their ids, counted per renderer process, could name an
/// unrelated element of a document in another process.
fn each(report: &mut Report, mut f: impl FnMut(i64, &mut Option<String>)) {
    if let Some(set) = report.insight_sets.last_mut() {
        if let Some(lcp) = &mut set.lcp {
            if let Some(node) = lcp.backend_node_id {
                f(node, &mut lcp.uid);
            }
        }
        for shift in &mut set.cls.shifts {
            shift.uids.resize(shift.backend_node_ids.len(), None);
            for (node, uid) in shift.backend_node_ids.iter().zip(shift.uids.iter_mut()) {
                f(*node, uid);
            }
        }
        if let Some(inp) = &mut set.inp {
            let interactions = std::iter::once(&mut inp.interaction).chain(inp.slowest.iter_mut());
            for i in interactions {
                if let Some(node) = i.backend_node_id {
                    f(node, &mut i.uid);
                }
            }
        }
        for image in &mut set.image_delivery.images {
            if let Some(node) = image.backend_node_id {
                f(node, &mut image.uid);
            }
        }
        let dom = &mut set.dom_size;
        for figure in [&mut dom.deepest, &mut dom.widest].into_iter().flatten() {
            if let Some(node) = figure.backend_node_id {
                f(node, &mut figure.uid);
            }
        }
    }
}

/// The backend node ids the report names, each once, in the order met.
pub fn backend_ids(report: &mut Report) -> Vec<i64> {
    let mut ids = Vec::new();
    each(report, |node, _| {
        if !ids.contains(&node) {
            ids.push(node);
        }
    });
    ids
}

/// Gives each element its uid, where the page had one for it.
pub fn name(report: &mut Report, uids: &HashMap<i64, String>) {
    each(report, |node, uid| *uid = uids.get(&node).cloned());
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use crate::analyze;
    use crate::insights::dom_size;
    use crate::insights::inp_breakdown as inp;
    use crate::Report;

    #[test]
    fn every_named_element_is_asked_about_once_and_given_its_uid() {
        let mut report: Report = analyze(&[]);
        let set = &mut report.insight_sets[0];
        set.dom_size.deepest = Some(dom_size::NodeFigure {
            value: 3,
            node_name: "DIV".into(),
            backend_node_id: Some(4),
            uid: None,
        });
        set.dom_size.widest = Some(dom_size::NodeFigure {
            value: 9,
            node_name: "UL".into(),
            backend_node_id: Some(5),
            uid: None,
        });
        let interaction = inp::Interaction {
            kind: "click".into(),
            interaction_id: 1,
            start_ms: 0.0,
            duration_ms: 1.0,
            input_delay_ms: 0.0,
            processing_ms: 1.0,
            presentation_delay_ms: 0.0,
            backend_node_id: Some(4),
            uid: None,
        };
        set.inp = Some(inp::Inp {
            ms: 1.0,
            interaction: interaction.clone(),
            slowest: vec![interaction],
            interactions: 1,
        });
        assert_eq!(super::backend_ids(&mut report), [4, 5]);
        super::name(&mut report, &HashMap::from([(4, "1_2".to_owned())]));
        let set = &report.insight_sets[0];
        assert_eq!(
            set.inp.as_ref().and_then(|i| i.interaction.uid.as_deref()),
            Some("1_2")
        );
        assert_eq!(
            set.dom_size.widest.as_ref().and_then(|w| w.uid.as_deref()),
            None
        );
    }

    #[test]
    fn only_the_last_loads_elements_are_asked_about() {
        let mut report: Report = analyze(&[]);
        let mut earlier = report.insight_sets[0].clone();
        earlier.dom_size.widest = Some(dom_size::NodeFigure {
            value: 9,
            node_name: "UL".into(),
            backend_node_id: Some(5),
            uid: None,
        });
        report.insight_sets.insert(0, earlier);
        assert!(super::backend_ids(&mut report).is_empty());
    }
}
