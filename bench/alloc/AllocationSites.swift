import CAllocationCounter
import Foundation

/// Where a request's allocations are made (`alloc-count --sites N`): every N-th allocation of a
/// counted round records its call stack (the counting allocator's `backtrace`), and at the end
/// each stack is symbolised (`llvm-symbolizer` with the binaries' debug information, names
/// through `swift-demangle`) and charged to its innermost frame in PushBridge's own sources
/// (`Sources/`): the line of PushBridge that asked, directly or through the standard library,
/// Foundation or a C library, for the memory.
struct AllocationSites {
    /// One line of source that allocates: where, in which function, and how often.
    struct Site {
        /// `File.swift:LINE` (the path from `Sources/` on).
        var place: String
        /// The function it is in, demangled and simplified.
        var function: String
        /// The frames between it and the allocator, innermost first (the standard library's
        /// or a C library's functions that allocated on its behalf), at most three.
        var through: [String]
        /// The lines of `Sources/` that called it, outermost last, at most three.
        var from: [String]
        /// Samples charged to it.
        var samples: Int
    }

    /// The sampled stacks, each as its return addresses, innermost first.
    let stacks: [[UInt]]
    /// Every how many allocations a stack was sampled.
    let every: Int

    /// Runs `work` (on the calling thread, the bench's own) with every `every`-th counted
    /// allocation's stack sampled.
    static func sample(every: Int, _ work: () throws -> Void) rethrows -> AllocationSites {
        pb_alloc_sample_every(Int32(every))
        pb_alloc_reset()
        pb_alloc_counting(1)
        defer { pb_alloc_counting(0) }
        try work()
        pb_alloc_counting(0)
        pb_alloc_sample_every(0)
        var stacks: [[UInt]] = []
        var frames = [UnsafeMutableRawPointer?](repeating: nil, count: Int(PB_ALLOC_SAMPLE_DEPTH))
        for index in 0..<pb_alloc_sample_count() {
            let depth = Int(pb_alloc_sample(index, &frames))
            stacks.append(frames.prefix(depth).map { UInt(bitPattern: $0) })
        }
        return AllocationSites(stacks: stacks, every: every)
    }

    /// The sites, most samples first. A stack with no frame in `Sources/` is charged to its
    /// first frame past the allocator (a runtime or library thread's own work).
    func sites() -> [Site] {
        let symbols = Symbolizer.symbolize(Set(stacks.flatMap { $0.dropFirst(2) }))
        var found: [String: Site] = [:]
        var throughs: [String: Int] = [:], best: [String: Int] = [:]
        for stack in stacks {
            // Frames 0 and 1 are take_sample/count_allocation and malloc itself.
            let frames = stack.dropFirst(2).flatMap { symbols[$0] ?? [] }
            let ownIndex = frames.firstIndex { $0.file.contains("/Sources/") && !$0.file.contains("CAllocationCounter") }
            let site: Symbolizer.Frame
            let through: [String]
            var from: [String] = []
            if let i = ownIndex {
                site = frames[i]
                through = frames[..<i].suffix(3).map(\.function)
                for frame in frames[(i + 1)...] where frame.file.contains("/Sources/") && from.count < 7 {
                    let line = Self.place(frame)
                    if line != from.last && line != Self.place(site) { from.append(line) }
                }
            } else {
                site = frames.first(where: { !$0.function.hasPrefix("malloc") && !$0.function.contains("swift_slowAlloc") }) ?? Symbolizer.Frame(function: "?", file: "?", line: 0)
                through = []
            }
            let place = Self.place(site) + (from.isEmpty ? "" : " < " + from.joined(separator: " < "))
            // One site per line; it shows the library path it allocated through most often.
            found[place, default: Site(place: place, function: site.function, through: through, from: from, samples: 0)].samples += 1
            throughs[place + "|" + through.joined(separator: "<"), default: 0] += 1
            if throughs[place + "|" + through.joined(separator: "<"), default: 0] > best[place, default: 0] {
                best[place] = throughs[place + "|" + through.joined(separator: "<")]
                found[place]?.through = through
            }
        }
        return found.values.sorted { $0.samples != $1.samples ? $0.samples > $1.samples : $0.place < $1.place }
    }

    /// `File.swift:LINE` of a frame, from `Sources/` on.
    static func place(_ frame: Symbolizer.Frame) -> String {
        let file = frame.file.range(of: "/Sources/").map { String(frame.file[$0.upperBound...]) } ?? (frame.file as NSString).lastPathComponent
        return file + ":\(frame.line)"
    }

    /// Prints the sites with at least one allocation per request in `requests`, and the rest in one line.
    func print(requests: Int, limit: Int = 80) {
        let all = sites()
        let perSample = Double(every) / Double(max(requests, 1))
        Swift.print("  where by file (every \(every). allocation's stack, \(stacks.count) samples; per request):")
        var files: [String: Int] = [:]
        for site in all { files[String(site.place.prefix { $0 != ":" }), default: 0] += site.samples }
        for (file, samples) in files.sorted(by: { $0.value > $1.value }).prefix(40) {
            Swift.print(String(format: "    %6.1f  ", Double(samples) * perSample) + file)
        }
        if stacks.count >= Int(PB_ALLOC_SAMPLES) {
            Swift.print("  (the sample buffer filled: later allocations were not sampled and the figures are low; sample less often, a larger --sites)")
        }
        Swift.print("  where by line (innermost line of Sources/, the library calls it allocated through most often):")
        for site in all.prefix(limit) {
            let figure = String(format: "%6.1f", Double(site.samples) * perSample)
            let through = site.through.isEmpty ? "" : "  ← " + site.through.map { String($0.prefix(60)) }.joined(separator: " ← ")
            Swift.print("    \(figure)  \(site.place)  \(site.function.prefix(90))\(through)")
        }
        let rest = all.dropFirst(limit).reduce(0) { $0 + $1.samples }
        if rest > 0 { Swift.print(String(format: "    %6.1f  (%d more sites)", Double(rest) * perSample, all.count - limit)) }
    }
}

/// Addresses to source lines through `llvm-symbolizer` (inlined frames included).
enum Symbolizer {
    /// One frame at an address: its function (demangled) and source line.
    struct Frame {
        var function: String
        var file: String
        var line: Int
    }

    /// Each address's frames, innermost (inlined) first.
    static func symbolize(_ addresses: Set<UInt>) -> [UInt: [Frame]] {
        // Group by the module each address is in, as offsets into its file.
        var byModule: [String: [(address: UInt, offset: UInt)]] = [:]
        for address in addresses where address > 0 {
            var base: UInt = 0
            guard let name = pb_alloc_module(UnsafeRawPointer(bitPattern: address - 1), &base) else { continue }
            let path = String(cString: name)
            // The executable's own name comes as it was started (relative or empty).
            let module = path.hasPrefix("/") ? path : ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? path)
            byModule[module, default: []].append((address, address - 1 - base))
        }
        var result: [UInt: [Frame]] = [:]
        var mangled: Set<String> = []
        for (module, entries) in byModule {
            let input = entries.map { "0x" + String($0.offset, radix: 16) }.joined(separator: "\n") + "\n"
            let output = run("/usr/bin/env", ["llvm-symbolizer", "--obj=\(module)", "--functions=linkage", "--inlines", "--no-demangle"], input: input)
            // One block per address: pairs of lines (function, file:line:column), then a blank line.
            let blocks = output.components(separatedBy: "\n\n")
            for (entry, block) in zip(entries, blocks) {
                let lines = block.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
                var frames: [Frame] = []
                var i = 0
                while i + 1 < lines.count {
                    let location = lines[i + 1].split(separator: ":")
                    frames.append(Frame(function: lines[i], file: location.first.map(String.init) ?? "?", line: location.count > 1 ? Int(location[1]) ?? 0 : 0))
                    mangled.insert(lines[i])
                    i += 2
                }
                result[entry.address] = frames
            }
        }
        let names = Array(mangled)
        let demangled = run("/usr/bin/env", ["swift-demangle", "--simplified", "--compact"], input: names.joined(separator: "\n") + "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var readable: [String: String] = [:]
        for (name, text) in zip(names, demangled) { readable[name] = text }
        return result.mapValues { $0.map { Frame(function: readable[$0.function] ?? $0.function, file: $0.file, line: $0.line) } }
    }

    /// Runs `tool` with `input` on its stdin and returns its stdout ("" when it cannot run).
    static func run(_ tool: String, _ arguments: [String], input: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return "" }
        // Write from another thread: the tool's output could fill its pipe before it reads all.
        let data = Data(input.utf8)
        let writer = Thread {
            stdin.fileHandleForWriting.write(data)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }
}
