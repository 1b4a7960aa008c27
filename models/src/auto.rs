//! `--model auto`: the first model whose data the device and input provide, in the order
//! dvfs (clock-aware, fittable), schedule (needs per-block instructions), linear (needs fitted
//! weights). Until validation (issue 6) measures which is best per device, this order prefers the
//! model that responds to both clock domains, which a sweep needs.

use crate::device::{Clocks, Device};
use crate::dvfs::DvfsModel;
use crate::linear::LinearModel;
use crate::model::{Model, ModelError, ModelInput, Prediction, Result};
use crate::schedule::ScheduleModel;

#[derive(Clone, Debug, Default)]
pub struct AutoModel;

/// Pick a model by name: `linear`, `schedule` (approach 2), `schedule-ilp` (approach 1), `dvfs`
/// or `auto`.
pub fn by_name(name: &str) -> Option<Box<dyn Model>> {
    match name {
        "linear" => Some(Box::new(LinearModel::default())),
        "schedule" => Some(Box::new(ScheduleModel::default())),
        "schedule-ilp" => Some(Box::new(ScheduleModel {
            approach: crate::schedule::Approach::IlpTlp,
            ..Default::default()
        })),
        "dvfs" => Some(Box::new(DvfsModel::default())),
        "auto" => Some(Box::new(AutoModel)),
        _ => None,
    }
}

impl Model for AutoModel {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn predict(&self, input: &ModelInput, d: &Device, clocks: Clocks) -> Result<Prediction> {
        let mut why = Vec::new();
        let candidates: [Box<dyn Model>; 3] = [
            Box::new(DvfsModel::default()),
            Box::new(ScheduleModel::default()),
            Box::new(LinearModel::default()),
        ];
        for m in candidates {
            match m.predict(input, d, clocks) {
                Ok(mut p) => {
                    p.notes.extend(why);
                    return Ok(p);
                }
                Err(e) => why.push(format!("auto: {} not usable: {e}", m.name())),
            }
        }
        Err(ModelError::Input {
            model: "auto".into(),
            what: format!("data for at least one model ({})", why.join("; ")),
        })
    }
}
