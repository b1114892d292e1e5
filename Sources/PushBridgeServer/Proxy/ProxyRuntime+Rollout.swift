extension ProxyRuntime {
    /// Resumes every rolled-back app whose rollout the reload changes (its percent, cohort key,
    /// fallback or segment starts, or whether it is in rollout at all): an operator who edited
    /// the stage has seen the rollback.
    func resumeChangedRollouts(from old: ProxySnapshot, to configuration: ProxyConfiguration) {
        for app in configuration.apps {
            guard let before = old.app(named: app.name) else { continue }
            let stage = { (a: AppConfiguration) in a.modesInUse.contains(.rollout) ? a.rollout : nil }
            guard stage(before) != stage(app), rollouts.rollback(of: app.name) != nil else { continue }
            if rollouts.resume(app: app.name) {
                log.info("rollout resumed: the reload changed the app's rollout; its new starts are placed by cohort again", ["app": .string(app.name)])
            }
        }
    }
}
