import Foundation
import PushBridgeCore
import PushBridgeTestSupport
import Testing
@testable import PushBridgeServer

/// The tests' one configuration builder (``TestConfiguration``): every key it can write is one
/// the real loader reads and reads back as set, its demo is config/demo.json, and the older
/// string-fragment harness shape still reaches the same configuration.
struct TestConfigurationTests {
    @Test func everyKeyTheBuilderWritesIsReadBackByTheLoaderAsSet() throws {
        let folder = try TemporaryDirectory("pushbridge-test-config")
        let ca = folder.url("ca.pem").path
        try Data("not used".utf8).write(to: URL(fileURLWithPath: ca))
        let full = TestConfiguration(upstream: "http://127.0.0.1:9").with {
            $0.logFormat = .json
            $0.auditDatabase = folder.url("audit.sqlite").path
            $0.schedulerDatabase = folder.url("starts.sqlite").path
            $0.instanceName = "test-a"
            $0.openPushCAFile = ca
            $0.admin = .init(tokenEnv: "OS_KEY")
            $0.legacy = [.onesignal: "http://127.0.0.1:1", .pushwoosh: TestConfiguration.legacyDouble, .buzzkit: "http://127.0.0.1:3"]
            $0.legacyDoubles = .init(listen: "127.0.0.1:0", keep: 7)
            $0.limits = .init(maxBodyBytes: 1, maxConnections: 9, perIPConnections: 8, headerMemoryBytes: 4096, maxHeadBytes: 3000, maxRequestTargetBytes: 100,
                              idleTimeoutSeconds: 4, requestTimeoutSeconds: 5, upstreamConnectTimeoutMs: 6, upstreamTimeoutMs: 7, maxActivities: 11)
            $0.delivery = .init(sendsPerWindow: 2, windowMs: 3, marginMs: 4, queueLimit: 5, maxWaitMs: 6, maxAttempts: 7, backoffBaseMs: 8, backoffMaxMs: 9, repeatWindowMs: 10,
                                liveReserve: 1, shadowMaxWaitMs: 12)
            $0.shadowQueue = .init(limit: 3, workers: 2, timeoutMs: 100)
            $0.auditRetentionDays = 0
            $0.auditMaxMiB = 5
            $0.auditMinFreeMiB = 6
            $0.readiness = .init(minRequests: 1, minShadowed: 2, maxWarningShare: 0.5, maxRejectionShare: 0.25, maxDisagreementShare: 0.125, maxOpenPushErrorRate: 0.75,
                                 maxRateLimitedRate: 1, minReach: 0.5, openPushRequestsPerMinute: 30, acceptedLosses: ["os": ["ios_sound"]])
            $0.instances = .init(heartbeatMs: 100, deadAfterMs: 300)
            $0.app("os") {
                $0.mode = .shadow
                $0.routeModes = [.update: .openpush]
                $0.shadow = .init(primary: .legacy, samplePercent: 50, openPushBaseURL: "http://127.0.0.1:4", openPushAppId: "app_x", restKeyEnv: "OP_KEY", segment: "seg_t")
                $0.unmappedSegments = "reject"
                $0.devices = "alias:external_id"
            }
            $0.app("pw") {
                $0.mode = .rollout
                $0.rollout = .init(percent: 5, cohortKey: .user, fallbackToLegacy: false, segmentStarts: .both)
                $0.segmentMap = TestApp.pushwooshSegmentMap
                $0.callers = [.keySHA256(String(repeating: "ab", count: 32))]
            }
        }
        let c = try full.load()
        #expect(c.logFormat == .json && c.instanceName == "test-a" && c.schedulerDatabase == full.schedulerDatabase && c.openPush?.caFile == ca)
        #expect(c.admin?.listen.port == 0 && c.legacy[.pushwoosh] == "double" && c.legacyDoubles.keep == 7)
        #expect(c.limits.maxBodyBytes == 1 && c.limits.maxHeadBytes == 3000 && c.limits.upstreamTimeout == .milliseconds(7) && c.auditLimits.maxActivities == 11)
        #expect(c.delivery.liveReserve == 1 && c.delivery.shadowMaxWaitMs == 12)
        #expect(c.delivery.sendsPerWindow == 2 && c.delivery.repeatWindowMs == 10 && c.shadowQueue.workers == 2 && c.shadowQueue.timeout == .milliseconds(100))
        #expect(c.auditLimits.retentionDays == 0 && c.auditLimits.maxBytes == 5 << 20 && c.auditLimits.minFreeBytes == 6 << 20)
        #expect(c.readiness.minShadowed == 2 && c.readiness.maxDisagreementShare == 0.125 && c.readiness.acceptedLosses == ["os": ["ios_sound"]])
        #expect(c.instances.heartbeatMs == 100 && c.instances.deadAfterMs == 300)
        let os = try #require(c.apps.first { $0.name == "os" }), pw = try #require(c.apps.first { $0.name == "pw" })
        #expect(os.mode == .shadow && os.routeModes == [.update: .openpush] && os.shadow?.samplePercent == 50 && os.shadow?.segment == "seg_t")
        #expect(os.unmappedSegments == .reject && os.devices == .alias("external_id"))
        #expect(pw.rollout == RolloutSettings(percent: 5, cohortKey: .user, fallbackToLegacy: false, segmentStarts: .both))
        #expect(pw.segmentMap == ["FILTER_NAME_1": "seg_01hq8n4t2v"] && pw.callers == [CallerCredential(sha256Hex: String(repeating: "ab", count: 32))])
    }

    @Test func theStandardConfigurationServesFourAppsOnAFreePortWithTheLoadersDefaults() throws {
        let c = try TestConfiguration(upstream: "http://127.0.0.1:9/").with { $0.auditDatabase = "/tmp/unused.sqlite" }.load()
        #expect(c.apps.map(\.name) == ["os", "os-mapped", "pw", "bk"] && c.listen.port == 0 && c.openPush?.baseURL == "http://127.0.0.1:9")
        #expect(c.apps.allSatisfy { $0.mode == .openpush && $0.openPushKey?.value == RecordingSandbox.restKey })
        #expect(c.limits == ProxyConfiguration.Limits() && c.delivery == DeliverySettings())
        #expect(CallerCredentials(apps: c.apps).apps(presenting: ProxyHarness.pushwooshAuth).map(\.name) == ["pw"])
    }

    /// ``TestConfiguration/demo(audit:)`` is what config/demo.json says, apart from where it
    /// listens and keeps its audit.
    @Test func theDemoConfigurationIsConfigDemoJSON() throws {
        let file = try ProxyConfiguration.load(fileAt: Repository.root.appendingPathComponent("config/demo.json").path, environment: TestConfiguration.demoEnvironment)
        let built = try TestConfiguration.demo(audit: "/tmp/unused.sqlite").load(environment: TestConfiguration.demoEnvironment)
        let describe = { (apps: [AppConfiguration]) in
            apps.map { "\($0.name) \($0.dialect) \($0.sourceAppId) \($0.openPushAppId) \($0.callers) \($0.segmentMap.sorted { $0.key < $1.key }) \($0.devices) \($0.mode)" }
        }
        #expect(describe(built.apps) == describe(file.apps) && built.apps.count == 3)
        #expect(built.readiness == file.readiness && built.sandbox.embedded && file.sandbox.embedded && built.logFormat == file.logFormat)
    }

    /// The older `ProxyHarness(upstream:limits:pushwooshExtra:topExtra:)` shape is JSON text
    /// merged over the typed fields: it loads to what the typed builder gives.
    @Test func theOlderStringFragmentsReachTheSameConfigurationAsTheTypedFields() throws {
        var fragments = TestConfiguration(upstream: "http://127.0.0.1:9").with { $0.auditDatabase = "/tmp/unused.sqlite" }
        fragments.fragments = try .init(limits: #"{"max_body_bytes": 4096}"#, topExtra: #", "delivery": {"max_attempts": 1}"#,
                                        pushwooshExtra: ProxyFailureTests.segmentMap, oneSignalExtra: #", "mode": "observe""#, apps: nil)
        fragments.legacy[.onesignal] = "http://127.0.0.1:1"
        let typed = TestConfiguration(upstream: "http://127.0.0.1:9").with {
            $0.auditDatabase = "/tmp/unused.sqlite"
            $0.limits.maxBodyBytes = 4096
            $0.delivery.maxAttempts = 1
            $0.legacy[.onesignal] = "http://127.0.0.1:1"
            $0.app("pw") { $0.segmentMap = TestApp.pushwooshSegmentMap }
            $0.app("os") { $0.mode = .observe }
        }
        #expect(try JSONParser.parse(Array(fragments.json.utf8)) == JSONParser.parse(Array(typed.json.utf8)), "\(fragments.json)\n\(typed.json)")
        #expect(try fragments.load().apps.first?.mode == .observe)
        #expect(throws: TestConfiguration.Fragments.FragmentError.self) { try TestConfiguration.Fragments.members(#", "limits": {"#) }
    }
}
