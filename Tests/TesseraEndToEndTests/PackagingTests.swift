import Foundation
import Glibc
import Testing
import TesseraTesting

/// The checkout these tests run from.
let repository = Python.interopDirectory().deletingLastPathComponent().deletingLastPathComponent()

/// What `scripts/test.sh` builds once before the suites (packaging/release.sh, then each
/// package's build.sh) and names in the environment.
enum Artifact: String {
    case releaseBinary = "TESSERA_RELEASE_BINARY"
    case debianPackage = "TESSERA_DEBIAN_PACKAGE"
    case image = "TESSERA_IMAGE"

    var path: String {
        get throws {
            let path = try #require(
                ProcessInfo.processInfo.environment[rawValue],
                "\(rawValue) is not set: scripts/test.sh builds the release binary and the packages once and names them")
            try #require(FileManager.default.fileExists(atPath: path), "\(rawValue)=\(path) does not exist")
            return path
        }
    }
}

/// The Debian package and the image, as an operator gets them: installed (the package) or
/// unpacked and started as its configuration says (the image), each serving with the
/// files it carries only. Both change the machine (dpkg, a chroot with /proc mounted), so
/// they run as root, one after the other.
@Suite("The packages: the Debian package and the OCI image", .tags(.live), .serialized, .timeLimit(.minutes(10)))
struct PackagingTests {
    /// Runs a program and returns its output, failing the test on another exit status.
    @discardableResult
    func run(_ executable: String, _ arguments: [String], status expected: Int32 = 0, environment: [String: String] = [:]) async throws -> String {
        let result = try await Program.run(executable, arguments, environment: environment, timeout: .seconds(300))
        #expect(result.status == expected, "\(executable) \(arguments.joined(separator: " ")): \(result.output)\(result.errors)")
        return result.output
    }

    /// The release binary's version and commit as `tessera --version` prints them
    /// (`v0.1.0-6-gabc1234 (commit 0123…)`).
    func releaseVersion() async throws -> (version: String, commit: String) {
        let printed = try await run(try Artifact.releaseBinary.path, ["--version"])
        let words = printed.split(whereSeparator: { " ()\n".contains($0) })
        return (String(words.first ?? ""), String(words.last ?? ""))
    }

    /// What both packages must do once started: answer /ready and /openapi.json (the
    /// document compiled into the binary), render a page from the compiled-in templates
    /// with its style sheet, and let a device log in (`tessera bench` enrols one and runs complete
    /// logins: authorize, device sign, code, token).
    func checkServes(port: Int, token: String) async throws {
        let server = "http://127.0.0.1:\(port)"
        var ready: Int?
        for _ in 0..<150 {
            ready = try? await TestHTTP().get("\(server)/ready").status
            if ready == 200 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(ready == 200, "the packaged server never answered /ready")
        let document = try await TestHTTP().get("\(server)/openapi.json")
        #expect(document.status == 200 && document.text.contains("\"openapi\""), "\(document.text.prefix(200))")
        let login = try await tessera(
            ["bench", "--tenant", "packaged", "--devices", "1", "--concurrency", "1", "--count", "3", "--json"],
            environment: ["TESSERA_SERVER": server, "TESSERA_ADMIN_TOKEN": token])
        #expect(login.0 == 0 && login.1["completed"] as? Int == 3, "\(login.2)")
        let page = try await TestHTTP().get("\(server)/console/sign-in")
        #expect(page.status == 200 && page.text.contains("/static/tessera.css"), "the console's sign-in page: \(page.status)")
        let style = try await TestHTTP().get("\(server)/static/tessera.css")
        #expect(style.status == 200 && !style.text.isEmpty, "the style sheet: \(style.status)")
    }

    @Test("the Debian package installs the binary, the tessera user, a conffile and a hardened notify unit; lintian and systemd-analyze accept it; installed, it serves as its user")
    func debianPackage() async throws {
        try #require(getuid() == 0, "installing a package (dpkg -i) needs root; CI runs as root")
        let package = try Artifact.debianPackage.path
        // The control fields: the version from the binary, the libraries from dpkg-shlibdeps.
        let version = try await releaseVersion().version
        let fields = try await run("/usr/bin/dpkg-deb", ["--field", package, "Package", "Version", "Architecture", "Depends"])
        #expect(fields.contains("Package: tessera") && fields.contains("Architecture: amd64"), "\(fields)")
        let debianVersion = String(version.dropFirst()).replacingOccurrences(of: #"-([0-9]+)-g([0-9a-f]+)"#, with: "+$1.g$2", options: .regularExpression)
            .replacingOccurrences(of: #"-g([0-9a-f]+)"#, with: "+g$1", options: .regularExpression)
            .replacingOccurrences(of: "-dirty", with: "+dirty")
        #expect(fields.contains("Version: \(debianVersion)\n"), "\(fields) for \(version)")
        for dependency in ["libc6 (>= ", "libsqlite3-0", "libcurl4", "adduser"] {
            #expect(fields.contains(dependency), "Depends names \(dependency): \(fields)")
        }
        #expect(try await run("/usr/bin/dpkg-deb", ["--info", package, "conffiles"]).contains("/etc/tessera/tessera.yaml"))
        let files = try await run("/usr/bin/dpkg-deb", ["--contents", package])
        for path in [
            "./usr/bin/tessera", "./usr/lib/systemd/system/tessera.service", "./etc/tessera/tessera.yaml", "./usr/share/doc/tessera/copyright",
            "./usr/share/tessera/grafana/tessera.json", "./usr/share/tessera/prometheus/alerts.yml",
        ] {
            #expect(files.contains(path), "the package holds \(path)")
        }
        // Nothing else of the checkout: no resource bundle beside the binary.
        #expect(!files.contains(".resources"), "\(files)")
        let lintian = try await Program.run("/usr/bin/lintian", ["--fail-on", "error", "--no-tag-display-limit", package], timeout: .seconds(300))
        #expect(lintian.status == 0, "lintian: \(lintian.output)\(lintian.errors)")
        #expect(!lintian.output.contains("E: "), "\(lintian.output)")

        try await run("/usr/bin/dpkg", ["--install", package])
        do {
            try await checkInstalled()
        } catch {
            _ = try? await Program.run("/usr/bin/dpkg", ["--purge", "tessera"])
            throw error
        }
        // Removed, the configuration an operator may have edited stays; purged, it goes.
        try await run("/usr/bin/dpkg", ["--remove", "tessera"])
        #expect(!FileManager.default.fileExists(atPath: "/usr/bin/tessera"))
        #expect(FileManager.default.fileExists(atPath: "/etc/tessera/tessera.yaml"), "a conffile outlives dpkg --remove")
        try await run("/usr/bin/dpkg", ["--purge", "tessera"])
        #expect(!FileManager.default.fileExists(atPath: "/etc/tessera/tessera.yaml"))
    }

    /// The installed package: its user, its files' modes, its unit, and its binary serving
    /// with the installed configuration, run as the `tessera` user.
    func checkInstalled() async throws {
        let user = try await run("/usr/bin/getent", ["passwd", "tessera"])
        #expect(user.contains(":/var/lib/tessera:") && user.contains("nologin"), "a system user with no login: \(user)")
        let group = try await run("/usr/bin/stat", ["--format", "%U:%G %a", "/etc/tessera/tessera.yaml"])
        #expect(group.hasPrefix("root:tessera 640"), "the configuration is the service's to read, no one else's: \(group)")
        #expect(try await run("/usr/bin/tessera", ["--version"]).hasPrefix(try await releaseVersion().version))

        let unit = try String(contentsOfFile: "/usr/lib/systemd/system/tessera.service", encoding: .utf8)
        for line in [
            "Type=notify", "User=tessera", "StateDirectory=tessera", "ProtectSystem=strict", "NoNewPrivileges=yes", "Restart=on-failure",
            "RestartPreventExitStatus=64 78", "ExecStart=/usr/bin/tessera serve --config /etc/tessera/tessera.yaml",
        ] {
            #expect(unit.split(separator: "\n").contains(Substring(line)), "the unit says \(line)")
        }
        let verify = try await Program.run("/usr/bin/systemd-analyze", ["verify", "/usr/lib/systemd/system/tessera.service"])
        #expect(verify.status == 0 && verify.errors.isEmpty, "systemd-analyze verify: \(verify.output)\(verify.errors)")

        // The installed binary and configuration, as the service's user (what systemd
        // would run, with the state directory a temporary one and the port free).
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-deb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        try await run("/usr/bin/chown", ["tessera:tessera", data.path])
        let port = try TestServerPort.free()
        let token = "packaged-admin-token-\(UUID().uuidString)"
        var environment = ["TESSERA_PORT": "\(port)", "TESSERA_DATA_DIR": data.path, "TESSERA_ADMIN_TOKEN": token, "TESSERA_LOG_LEVEL": "warning"]
        if let database = try await TestDatabase.fresh() { environment["TESSERA_DATABASE_URL"] = database }
        let server = try await ChildProcess.start(
            "/usr/bin/env",
            ["-i"] + environment.map { "\($0.key)=\($0.value)" }
                + ["/usr/bin/setpriv", "--reuid=tessera", "--regid=tessera", "--init-groups", "/usr/bin/tessera", "serve", "--config", "/etc/tessera/tessera.yaml"])
        defer { if server.isRunning { server.kill() } }
        try await checkServes(port: port, token: token)
        server.terminate()
        try await server.waitForExit()
        #expect(server.terminationStatus == 0)
        if environment["TESSERA_DATABASE_URL"] == nil {
            let owner = try await run("/usr/bin/stat", ["--format", "%U %a", data.appendingPathComponent("tessera.sqlite").path])
            #expect(owner.hasPrefix("tessera 600"), "the database is the service user's alone: \(owner)")
        }
    }

    @Test("the image (built without a daemon) runs its entry point as its own user from its files alone: ready, OpenAPI, a login, its health check")
    func image() async throws {
        try #require(getuid() == 0, "running the image's root under chroot (and mounting its /proc) needs root; CI runs as root")
        let archive = try Artifact.image.path
        let (version, commit) = try await releaseVersion()
        // What Docker or Podman read: the user, the volume, the port, the health check, the labels.
        // The archive's own configuration (skopeo inspect shows it converted to OCI's, which
        // has no health check).
        let manifest = try await run("/usr/bin/tar", ["-xOf", archive, "manifest.json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(manifest.utf8)) as? [[String: Any]])
        let configFile = try #require(entries.first?["Config"] as? String, "\(manifest)")
        let inspected = try await run("/usr/bin/tar", ["-xOf", archive, configFile])
        let image = try #require(try JSONSerialization.jsonObject(with: Data(inspected.utf8)) as? [String: Any])
        let config = try #require(image["config"] as? [String: Any], "\(inspected)")
        #expect(config["User"] as? String == "10001:10001")
        #expect((config["Volumes"] as? [String: Any])?.keys.contains("/var/lib/tessera") == true, "\(config)")
        #expect((config["ExposedPorts"] as? [String: Any])?.keys.contains("8080/tcp") == true, "\(config)")
        let health = try #require(config["Healthcheck"] as? [String: Any], "HEALTHCHECK survives (Docker format): \(config)")
        #expect(health["Test"] as? [String] == ["CMD", "/usr/bin/tessera", "health"], "\(health)")
        let labels = config["Labels"] as? [String: String] ?? [:]
        #expect(labels["org.opencontainers.image.version"] == version, "\(labels)")
        #expect(labels["org.opencontainers.image.revision"] == commit, "\(labels)")

        // Unpacked as a runtime would: the layers into a root, the configuration into an OCI
        // runtime bundle (umoci), then its entry point under chroot as its user.
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-image-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try await run("/usr/bin/skopeo", ["copy", "--quiet", "docker-archive:\(archive)", "oci:\(work.path)/layout:tessera"])
        try await run("/usr/bin/umoci", ["unpack", "--image", "\(work.path)/layout:tessera", "\(work.path)/bundle"])
        let bundle = work.appendingPathComponent("bundle")
        let runtime = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("config.json"))) as? [String: Any])
        let process = try #require(runtime["process"] as? [String: Any])
        let arguments = try #require(process["args"] as? [String])
        #expect(arguments == ["/usr/bin/tessera", "serve"])
        let user = try #require(process["user"] as? [String: Any])
        let (uid, gid) = (user["uid"] as? Int ?? -1, user["gid"] as? Int ?? -1)
        #expect(uid == 10001 && gid == 10001)
        let root = bundle.appendingPathComponent("rootfs")
        // The image's files: the binary and its libraries, nothing from the checkout.
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("etc/ssl/certs/ca-certificates.crt").path))
        let dataOwner = try await run("/usr/bin/stat", ["--format", "%u %a", root.appendingPathComponent("var/lib/tessera").path])
        #expect(dataOwner.hasPrefix("10001 700"), "the data directory is the user's: \(dataOwner)")

        // A runtime makes /proc and mounts it (Swift reads a process's arguments from it).
        let proc = root.appendingPathComponent("proc").path
        try FileManager.default.createDirectory(atPath: proc, withIntermediateDirectories: true)
        try #require(mount("proc", proc, "proc", 0, nil) == 0, "mount proc: \(String(cString: strerror(errno)))")
        defer { umount2(proc, Int32(MNT_DETACH)) }
        let port = try TestServerPort.free()
        let token = "image-admin-token-\(UUID().uuidString)"
        var environment = (process["env"] as? [String]) ?? []
        #expect(environment.contains("TESSERA_HOST=0.0.0.0") && environment.contains("TESSERA_DATA_DIR=/var/lib/tessera"), "\(environment)")
        environment += ["TESSERA_PORT=\(port)", "TESSERA_PUBLIC_URL=http://127.0.0.1:\(port)", "TESSERA_ADMIN_TOKEN=\(token)"]
        if let database = try await TestDatabase.fresh() { environment.append("TESSERA_DATABASE_URL=\(database)") }
        let chrooted = ["-i"] + environment + ["/usr/sbin/chroot", "--userspec=\(uid):\(gid)", root.path]
        let server = try await ChildProcess.start("/usr/bin/env", chrooted + arguments)
        defer { if server.isRunning { server.kill() } }
        try await checkServes(port: port, token: token)
        // The health check as the runtime runs it: inside the container, beside the server.
        try await run("/usr/bin/env", chrooted + (health["Test"] as? [String] ?? []).dropFirst())
        server.terminate()
        try await server.waitForExit()
        #expect(server.terminationStatus == 0)
        if !environment.contains(where: { $0.hasPrefix("TESSERA_DATABASE_URL=") }) {
            let owner = try await run("/usr/bin/stat", ["--format", "%u %a", root.appendingPathComponent("var/lib/tessera/tessera.sqlite").path])
            #expect(owner.hasPrefix("10001 600"), "written by the image's user: \(owner)")
        }
        // Stopped, the health check fails: its exit status is what the runtime reads.
        try await run("/usr/bin/env", chrooted + (health["Test"] as? [String] ?? []).dropFirst(), status: 1)
    }
}
