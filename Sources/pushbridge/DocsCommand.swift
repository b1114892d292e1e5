import PushBridgeCore

/// `pushbridge docs field-mapping`: prints the generated field-mapping document.
enum DocsCommand {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments == ["field-mapping"] else {
            printError("usage: pushbridge docs field-mapping")
            return 2
        }
        print(FieldMappingDocument.markdown(), terminator: "")
        return 0
    }
}
