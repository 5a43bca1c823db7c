//! The `check_in` payload: one report of a cron monitor run.

use super::Uuid;
use serde::Serialize;

/// State reported by a check-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CheckInStatus {
    /// The run started.
    InProgress,
    /// The run finished successfully.
    Ok,
    /// The run failed.
    Error,
}

/// How often a monitor is expected to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum MonitorSchedule {
    /// A five-field cron expression, e.g. `*/5 * * * *`.
    Crontab {
        /// The expression.
        value: String,
    },
    /// Every `value` units (`minute`, `hour`, `day`, `week`, `month`, `year`).
    Interval {
        /// How many units between runs.
        value: u32,
        /// The unit name.
        unit: String,
    },
}

/// Monitor settings carried by a check-in; the service upserts the monitor from them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MonitorConfig {
    /// The schedule.
    pub schedule: MonitorSchedule,
    /// Minutes late before a run counts as missed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkin_margin: Option<u32>,
    /// Minutes running before a run counts as overrunning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_runtime: Option<u32>,
    /// Time-zone name the schedule is read in (default UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
}

impl MonitorConfig {
    /// A config with only a schedule.
    pub fn new(schedule: MonitorSchedule) -> Self {
        Self {
            schedule,
            checkin_margin: None,
            max_runtime: None,
            timezone: None,
        }
    }
}

/// A cron check-in.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CheckIn {
    /// Id shared by the opening and closing check-in of one run.
    pub check_in_id: Uuid,
    /// Which monitor this run belongs to.
    pub monitor_slug: String,
    /// State of the run.
    pub status: CheckInStatus,
    /// Run time in seconds (for closing check-ins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// Release label; filled from the client options when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// Environment label; filled from the client options when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// Monitor settings to create or update the monitor with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monitor_config: Option<MonitorConfig>,
}

impl CheckIn {
    /// A check-in for `monitor_slug` with a fresh id.
    pub fn new(monitor_slug: impl Into<String>, status: CheckInStatus) -> Self {
        Self {
            check_in_id: Uuid::new_v4(),
            monitor_slug: monitor_slug.into(),
            status,
            duration: None,
            release: None,
            environment: None,
            monitor_config: None,
        }
    }

    /// The closing check-in of the same run, with a new status and duration.
    pub fn finish(&self, status: CheckInStatus, duration_secs: f64) -> Self {
        Self {
            status,
            duration: Some(duration_secs),
            monitor_config: None,
            ..self.clone()
        }
    }
}
