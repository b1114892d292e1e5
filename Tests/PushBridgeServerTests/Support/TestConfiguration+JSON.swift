import Foundation
import PushBridgeCore
@testable import PushBridgeServer

extension TestConfiguration {
    /// The configuration file's text, one line, `"key": value` members in the file's order.
    var json: String { Self.text(.object(object)) }

    /// The configuration as the real loader reads it (the caller keys of
    /// ``ProxyHarness/environment`` unless told otherwise).
    func load(environment: [String: String] = ProxyHarness.environment) throws(ConfigurationError) -> ProxyConfiguration {
        try ProxyConfiguration.load(json: Array(json.utf8), environment: environment)
    }

    /// Writes the file to `path` (for `pushbridge serve --config`, `check-config`, a reload);
    /// returns `path`.
    @discardableResult
    func write(to path: String) throws -> String {
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The top-level object.
    var object: JSONObject {
        var o = JSONObject()
        o["listen"] = listen.map(JSONValue.string)
        o["log_format"] = logFormat.map { .string($0.rawValue) }
        o["audit_db"] = auditDatabase.map(JSONValue.string)
        o["instance_name"] = instanceName.map(JSONValue.string)
        o["limits"] = Self.nonEmpty(limitsObject)
        if let openPush {
            o["openpush"] = .object(Self.members([("base_url", .string(openPush)), ("ca_file", openPushCAFile.map(JSONValue.string))]))
        }
        if let sandbox {
            o["sandbox"] = .object(Self.members([("embedded", .bool(sandbox.embedded)), ("seed", sandbox.seed.map(JSONValue.string)),
                                                 ("rate_window_seconds", Self.int(sandbox.rateWindowSeconds)), ("listen", sandbox.listen.map(JSONValue.string))]))
        }
        if let admin {
            o["admin"] = .object(Self.members([("token_env", .string(admin.tokenEnv)), ("listen", admin.listen.map(JSONValue.string)), ("tls", admin.tls.map(Self.tls))]))
        }
        if !legacy.isEmpty {
            o["legacy"] = .object(Self.members(DialectName.allCases.map { ($0.rawValue, legacy[$0].map(JSONValue.string)) }))
        }
        if let legacyDoubles {
            o["legacy_doubles"] = .object(Self.members([("listen", legacyDoubles.listen.map(JSONValue.string)), ("keep", Self.int(legacyDoubles.keep))]))
        }
        let d = delivery
        o["delivery"] = Self.nonEmpty(Self.members([
            ("sends_per_window", Self.int(d.sendsPerWindow)), ("window_ms", Self.int(d.windowMs)), ("margin_ms", Self.int(d.marginMs)),
            ("queue_limit", Self.int(d.queueLimit)), ("max_wait_ms", Self.int(d.maxWaitMs)), ("max_attempts", Self.int(d.maxAttempts)),
            ("backoff_base_ms", Self.int(d.backoffBaseMs)), ("backoff_max_ms", Self.int(d.backoffMaxMs)),
            ("repeat_window_ms", Self.int(d.repeatWindowMs)), ("scheduler_db", schedulerDatabase.map(JSONValue.string)),
            ("live_reserve", Self.int(d.liveReserve)), ("shadow_max_wait_ms", Self.int(d.shadowMaxWaitMs)),
        ]))
        o["shadow_queue"] = Self.nonEmpty(Self.members([("limit", Self.int(shadowQueue.limit)), ("workers", Self.int(shadowQueue.workers)),
                                                       ("timeout_ms", Self.int(shadowQueue.timeoutMs))]))
        o["tls"] = tls.map(Self.tls)
        o["audit_retention_days"] = Self.int(auditRetentionDays)
        o["audit_max_mib"] = Self.int(auditMaxMiB)
        o["audit_min_free_mib"] = Self.int(auditMinFreeMiB)
        o["readiness"] = readiness.map { .object($0.object) }
        o["instances"] = Self.nonEmpty(Self.members([("heartbeat_ms", Self.int(instances.heartbeatMs)), ("dead_after_ms", Self.int(instances.deadAfterMs))]))
        o["apps"] = fragments.appsArray ?? .array(apps.map { app in
            var members = app.object
            for member in fragments.apps[app.name]?.members ?? [] { members[member.key] = member.value }
            return .object(members)
        })
        for member in fragments.top.members { o[member.key] = member.value }
        return o
    }

    private var limitsObject: JSONObject {
        let l = limits
        var o = Self.members([
            ("max_body_bytes", Self.int(l.maxBodyBytes)), ("max_connections", Self.int(l.maxConnections)),
            ("per_ip_connections", Self.int(l.perIPConnections)), ("header_memory_bytes", Self.int(l.headerMemoryBytes)),
            ("max_head_bytes", Self.int(l.maxHeadBytes)), ("max_request_target_bytes", Self.int(l.maxRequestTargetBytes)),
            ("idle_timeout_seconds", Self.int(l.idleTimeoutSeconds)), ("request_timeout_seconds", Self.int(l.requestTimeoutSeconds)),
            ("upstream_connect_timeout_ms", Self.int(l.upstreamConnectTimeoutMs)), ("upstream_timeout_ms", Self.int(l.upstreamTimeoutMs)),
            ("max_activities", Self.int(l.maxActivities)),
        ])
        for member in fragments.limits.members { o[member.key] = member.value }
        return o
    }

    /// An object of the members whose value is present, in order.
    static func members(_ pairs: [(String, JSONValue?)]) -> JSONObject {
        JSONObject(members: pairs.compactMap { key, value in value.map { JSONMember(key, $0) } })
    }

    static func int(_ value: Int?) -> JSONValue? { value.map { .int(Int64($0)) } }
    private static func nonEmpty(_ o: JSONObject) -> JSONValue? { o.isEmpty ? nil : .object(o) }
    private static func tls(_ t: TLS) -> JSONValue { .object(["certificate_chain": .string(t.certificateChain), "private_key": .string(t.privateKey)]) }

    /// JSON text with `": "` and `", "` between members (as people write it, so a test can
    /// read a value out of it); strings escaped by ``JSONWriter``.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .array(let a): "[" + a.map(text).joined(separator: ", ") + "]"
        case .object(let o): "{" + o.members.map { JSONWriter.string(.string($0.key)) + ": " + text($0.value) }.joined(separator: ", ") + "}"
        default: JSONWriter.string(value)
        }
    }
}

extension TestConfiguration.Readiness {
    /// The `readiness` object.
    var object: JSONObject {
        TestConfiguration.members([
            ("min_requests", TestConfiguration.int(minRequests)), ("min_shadowed", TestConfiguration.int(minShadowed)),
            ("max_warning_share", maxWarningShare.map(JSONValue.double)), ("max_rejection_share", maxRejectionShare.map(JSONValue.double)),
            ("max_disagreement_share", maxDisagreementShare.map(JSONValue.double)), ("max_openpush_error_rate", maxOpenPushErrorRate.map(JSONValue.double)),
            ("max_rate_limited_rate", maxRateLimitedRate.map(JSONValue.double)), ("min_reach", minReach.map(JSONValue.double)),
            ("openpush_requests_per_minute", TestConfiguration.int(openPushRequestsPerMinute)),
            ("accepted_losses", acceptedLosses.map { losses in
                .object(JSONObject(members: losses.keys.sorted().map { JSONMember($0, .array((losses[$0] ?? []).map(JSONValue.string))) }))
            }),
        ])
    }
}

extension TestApp {
    /// The app's object in `apps`.
    var object: JSONObject {
        var o = TestConfiguration.members([
            ("name", .string(name)), ("dialect", .string(dialect.rawValue)), ("source_app_id", .string(sourceAppId)),
            ("mode", mode.map { .string($0.rawValue) }),
        ])
        if !routeModes.isEmpty {
            o["route_modes"] = .object(TestConfiguration.members(RouteKind.allCases.map { ($0.rawValue, routeModes[$0].map { .string($0.rawValue) }) }))
        }
        o["openpush"] = .object(TestConfiguration.members([("app_id", .string(openPushAppId)), ("rest_key_env", restKeyEnv.map(JSONValue.string))]))
        o["callers"] = .array(callers.map {
            switch $0 {
            case .keyEnv(let name): .object(["key_env": .string(name)])
            case .keySHA256(let hex): .object(["key_sha256": .string(hex)])
            }
        })
        o["pass_through_key"] = passThroughKey.map(JSONValue.bool)
        if !segmentMap.isEmpty {
            o["segment_map"] = .object(JSONObject(members: segmentMap.keys.sorted().map { JSONMember($0, .string(segmentMap[$0] ?? "")) }))
        }
        o["unmapped_segments"] = unmappedSegments.map(JSONValue.string)
        o["devices"] = devices.map(JSONValue.string)
        if let shadow {
            o["shadow"] = .object(TestConfiguration.members([
                ("primary", shadow.primary.map { .string($0.rawValue) }), ("sample_percent", TestConfiguration.int(shadow.samplePercent)),
                ("openpush_base_url", shadow.openPushBaseURL.map(JSONValue.string)), ("openpush_app_id", shadow.openPushAppId.map(JSONValue.string)),
                ("rest_key_env", shadow.restKeyEnv.map(JSONValue.string)), ("segment", shadow.segment.map(JSONValue.string)),
            ]))
        }
        if let rollout {
            o["rollout"] = .object(TestConfiguration.members([
                ("percent", .int(Int64(rollout.percent))), ("cohort_key", rollout.cohortKey.map { .string($0.rawValue) }),
                ("fallback_to_legacy", rollout.fallbackToLegacy.map(JSONValue.bool)), ("segment_starts", rollout.segmentStarts.map { .string($0.rawValue) }),
            ]))
        }
        return o
    }
}
