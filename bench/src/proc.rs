//! What Linux says about a process.

/// Peak resident set size (`VmHWM` of `/proc/<pid>/status`) in MiB; `None` once the process
/// is gone or where `/proc` has no such field.
pub fn peak_rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// CPU seconds (user + system) the process has used so far; `None` once it is gone.
pub fn cpu_secs(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesized command name, which may itself hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let (user, system): (f64, f64) = (fields.get(11)?.parse().ok()?, fields.get(12)?.parse().ok()?);
    Some((user + system) / clock_ticks_per_sec())
}

/// `getconf CLK_TCK`, 100 where it cannot be asked.
fn clock_ticks_per_sec() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(100.0)
}

/// The 1-minute load average, as `/proc/loadavg` reports it.
pub fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_own_peak() {
        let mib = super::peak_rss_mib(std::process::id()).expect("own VmHWM");
        assert!(mib > 0.0);
        assert!(super::cpu_secs(std::process::id()).is_some());
        assert!(super::load_average().is_some());
    }
}
