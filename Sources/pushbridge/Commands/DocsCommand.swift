import PushBridgeCore

/// `pushbridge docs field-mapping`: prints the generated field-mapping document.
enum DocsCommand {
    /// The declaration.
    static let command = Command(
        name: "docs", summary: "print generated documentation",
        subcommands: [
            Command(name: "field-mapping", summary: "print docs/field-mapping.md (every field of every dialect and what becomes of it)",
                    run: { _ in
                        print(FieldMappingDocument.markdown(), terminator: "")
                        return 0
                    })
        ])
}
