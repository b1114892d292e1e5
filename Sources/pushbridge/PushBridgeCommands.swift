/// The whole command tree of `pushbridge`, in the order `pushbridge --help` lists it.
enum PushBridgeCommands {
    /// The root: `pushbridge` with every command below it.
    static let root = Command(
        name: "pushbridge",
        summary: "PushBridge: translate OneSignal, Pushwoosh and BuzzKit Live Activity requests into OpenPush requests.",
        subcommands: [
            ServeCommand.command, TranslateCommand.command, SandboxCommand.command, AuditCommand.command, ScheduledCommand.command,
            ReportCommand.command, ReadinessCommand.command, RolloutCommand.command, StagesCommand.command, ActivitiesCommand.command, ReplayCommand.command, CheckConfigCommand.command, DocsCommand.command,
        ]
    )
}
