// libFuzzer entry for the pushwoosh dialect (built by fuzz/build.sh with -sanitize=fuzzer,address).

/// libFuzzer's entry point: one input through the pushwoosh dialect. Always returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzHarness.run(.pushwoosh, bytes)
    return 0
}
