import Foundation
import PackagePlugin

/// Embeds the package's `Migrations/*.sql` files into the target as Swift string literals,
/// so that a copied binary carries its schema (no resource bundle beside it).
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // A target with a Migrations/ folder of its own (another database's schema) gets
        // those as `Migration.own`; otherwise the package's journal schema, as `Migration.all`.
        let own = (target as? SourceModuleTarget)?.directoryURL.appending(path: "Migrations")
        let hasOwn = own.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
        let folder = hasOwn ? own! : context.package.directoryURL.appending(path: "Migrations")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migration(s) into \(target.name)",
                executable: try context.tool(named: "EventTreeEmbedder").url,
                arguments: ["migrations", output.path] + (hasOwn ? ["--own"] : []) + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
