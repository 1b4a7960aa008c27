//! `kerncast devices [NAME]`: list the device profiles, or show one with the source of every
//! value. Thin: loading is `kerncast_models::Device`, rendering `kerncast_models::render`.

use crate::Error;
use kerncast_models::{render, Device};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Device name (`gtx-titan-x`) or profile path; without it, every profile is listed.
    pub name: Option<String>,
    /// JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What `kerncast devices` prints.
pub fn output(args: &Args) -> crate::Result<String> {
    match &args.name {
        Some(n) => {
            let d = Device::load(n).map_err(|e| Error::Device(e.to_string()))?;
            if args.json {
                serde_json::to_string_pretty(&d).map_err(|e| Error::Output(e.to_string()))
            } else {
                Ok(render::render_device(&d))
            }
        }
        None => {
            let all = Device::list().map_err(|e| Error::Device(e.to_string()))?;
            if args.json {
                let names: Vec<&str> = all.iter().map(|d| d.name.as_str()).collect();
                serde_json::to_string_pretty(&names).map_err(|e| Error::Output(e.to_string()))
            } else {
                Ok(render::render_device_list(&all))
            }
        }
    }
}
