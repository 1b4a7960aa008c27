//! SARIF 2.1.0 output of the gate (serde-sarif types), so GitHub code scanning shows a predicted
//! regression or an analysis error at the kernel's source line. One rule per metric plus one for
//! analysis errors; a baseline entry no kernel matches, or a comparison that cannot be made,
//! is an error result too (the gate fails closed); `new` entries are notes, not results.

use crate::check::{Outcome, Status};
use serde_sarif::sarif::{
    ArtifactLocation, Location, Message, MultiformatMessageString, PhysicalLocation, Region,
    ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Sarif, Tool, ToolComponent,
};

const RULES: [(&str, &str); 5] = [
    (
        "kerncast/time-regression",
        "Predicted kernel time grew beyond the threshold",
    ),
    (
        "kerncast/energy-regression",
        "Predicted kernel energy grew beyond the threshold",
    ),
    (
        "kerncast/power-regression",
        "Predicted kernel power grew beyond the threshold",
    ),
    (
        "kerncast/analysis-error",
        "The kernel could not be analysed",
    ),
    (
        "kerncast/baseline-unmatched",
        "A baseline entry is matched by no analysed kernel, or there is nothing to compare",
    ),
];

fn location(file: &str, line: Option<u32>) -> Location {
    let art = ArtifactLocation::builder()
        .uri(file.replace('\\', "/"))
        .build();
    let phys = match line {
        Some(l) => PhysicalLocation::builder()
            .artifact_location(art)
            .region(Region::builder().start_line(l.max(1) as i64).build())
            .build(),
        None => PhysicalLocation::builder().artifact_location(art).build(),
    };
    Location::builder().physical_location(phys).build()
}

fn rule_index(id: &str) -> i64 {
    RULES.iter().position(|(r, _)| *r == id).unwrap_or(0) as i64
}

/// The SARIF log for a gate outcome.
pub fn render(o: &Outcome) -> Sarif {
    let mut results = Vec::new();
    for r in o.rows.iter().filter(|r| r.status == Status::Regressed) {
        for d in r.deltas.iter().filter(|d| d.regressed) {
            let id = format!("kerncast/{}-regression", d.metric);
            let text = format!(
                "{}: predicted {} grew {:+.1}% (limit +{:.1}%): {:.6e} -> {:.6e} ({})",
                r.kernel,
                d.metric,
                d.change * 100.0,
                d.threshold * 100.0,
                d.baseline,
                d.current,
                r.key
            );
            let locations: Vec<Location> = r
                .source
                .iter()
                .map(|src| location(&src.file, Some(src.line)))
                .collect();
            results.push(
                SarifResult::builder()
                    .rule_id(id.clone())
                    .rule_index(rule_index(&id))
                    .level(ResultLevel::Error)
                    .message(Message::builder().text(text).build())
                    .locations(locations)
                    .build(),
            );
        }
    }
    for e in &o.errors {
        let id = "kerncast/analysis-error";
        let text = format!(
            "{}{}: {}",
            e.kernel
                .as_deref()
                .map(|k| format!("{k}: "))
                .unwrap_or_default(),
            e.stage,
            e.message
        );
        let locations: Vec<Location> = if e.file.is_empty() {
            Vec::new()
        } else {
            vec![location(&e.file, e.line)]
        };
        results.push(
            SarifResult::builder()
                .rule_id(id)
                .rule_index(rule_index(id))
                .level(ResultLevel::Error)
                .message(Message::builder().text(text).build())
                .locations(locations)
                .build(),
        );
    }
    let id = "kerncast/baseline-unmatched";
    let unmatched = o.missing.iter().map(|m| {
        format!("{m}: in the baseline, not analysed now (run with --update-baseline to remove it)")
    });
    for text in unmatched.chain(o.refusals.iter().cloned()) {
        results.push(
            SarifResult::builder()
                .rule_id(id)
                .rule_index(rule_index(id))
                .level(ResultLevel::Error)
                .message(Message::builder().text(text).build())
                .build(),
        );
    }
    let rules: Vec<ReportingDescriptor> = RULES
        .iter()
        .map(|(id, desc)| {
            ReportingDescriptor::builder()
                .id(*id)
                .short_description(MultiformatMessageString::builder().text(*desc).build())
                .build()
        })
        .collect();
    let driver = ToolComponent::builder()
        .name("kerncast")
        .version(env!("CARGO_PKG_VERSION"))
        .rules(rules)
        .build();
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        .build();
    Sarif::builder()
        .version(serde_json::json!("2.1.0"))
        .schema(serde_sarif::sarif::SCHEMA_URL)
        .runs(vec![run])
        .build()
}

/// The SARIF log as pretty JSON.
pub fn to_json(o: &Outcome) -> String {
    let mut s = serde_json::to_string_pretty(&render(o)).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use crate::check::{compare, Baseline, GateThresholds};

    #[test]
    fn regression_points_at_the_kernel_line() {
        let r = crate::report::sample::report();
        let base = Baseline::from_report(&r);
        let mut worse = r.clone();
        worse.kernels[0].prediction.time_s *= 2.0;
        let o = compare(&worse, &base, &GateThresholds::default());
        let v: serde_json::Value = serde_json::from_str(&super::to_json(&o)).unwrap();
        assert_eq!(v["version"], "2.1.0");
        let res = &v["runs"][0]["results"][0];
        assert_eq!(res["ruleId"], "kerncast/time-regression");
        assert_eq!(res["level"], "error");
        let loc = &res["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "k/saxpy.cu");
        assert_eq!(loc["region"]["startLine"], 3);
    }
}
