import Foundation
import TesseraStore
import TesseraTesting
import Testing

/// The database URL is read as libpq reads it (checked against libpq's own
/// PQconninfoParse), with several hosts for a failover.
@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("hosts, ports, user, password, database, sslmode and target_session_attrs read as libpq reads them")
    func asLibpqReadsThem() async throws {
        let urls = [
            "postgres://tessera:secret@db.internal:5432/tessera?sslmode=require",
            "postgresql://u:p%40ss@h1:5432,[::1]:5433,h3/db%20x?sslmode=disable&target_session_attrs=read-write",
            "postgres://tessera@127.0.0.1,127.0.0.2:6000/tessera?target_session_attrs=any",
            "postgres://tessera@localhost",
        ]
        let libpq = try await Python.run("libpq_conninfo.py", urls)
        try #require(libpq.status == 0, "\(libpq.errors)")
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(libpq.output.utf8)) as? [[String: Any]])
        for (url, theirs) in zip(urls, expected) {
            let ours = try PostgresURL(url)
            let hosts = (theirs["hosts"] as? [[String: Any]] ?? []).map { PostgresURL.Endpoint(host: $0["host"] as? String ?? "", port: $0["port"] as? Int ?? 0) }
            #expect(ours.hosts == hosts, "\(url)")
            #expect(ours.user == theirs["user"] as? String, "\(url)")
            #expect(ours.password == theirs["password"] as? String, "\(url)")
            #expect(ours.database == theirs["database"] as? String, "\(url)")
            #expect(ours.sslMode == theirs["sslmode"] as? String, "\(url)")
            #expect(ours.writableOnly == (theirs["target_session_attrs"] as? String == "read-write"), "\(url)")
        }
    }

    @Test("the password is left out of the URL that commands print, and nothing else")
    func withoutPassword() throws {
        #expect(
            try PostgresURL("postgres://tessera:s3cret@h1:5432,h2:5433/tessera?sslmode=require&target_session_attrs=read-write").withoutPassword
                == "postgres://tessera@h1:5432,h2:5433/tessera?sslmode=require&target_session_attrs=read-write")
        #expect(try PostgresURL("postgres://tessera@h/db").withoutPassword == "postgres://tessera@h/db")
    }

    @Test("a password put into a URL of several hosts reads back, here and in libpq")
    func withPassword() async throws {
        let password = "p@ss:w/rd?#% é"
        let url = try PostgresURL("postgres://tessera@h1:5432,h2:5433/tessera?target_session_attrs=read-write").withPassword(password)
        let ours = try PostgresURL(url)
        #expect(ours.password == password && ours.hosts.count == 2 && ours.writableOnly, "\(url)")
        let libpq = try await Python.run("libpq_conninfo.py", [url])
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(libpq.output.utf8)) as? [[String: Any]]).first
        #expect(theirs?["password"] as? String == password, "\(libpq.output)")
        #expect((theirs?["hosts"] as? [Any])?.count == 2, "\(libpq.output)")
    }

    @Test("a URL that cannot be used is refused, naming what is wrong", arguments: [
        ("mysql://u@h/db", "postgres://"),
        ("postgres://h/db", "no user"),
        ("postgres://u@h:99999/db", "port 99999"),
        ("postgres://u@h1,:5432/db", "empty host"),
        ("postgres://u@[::1/db", "lacks its ]"),
        ("postgres://u@h/db?sslmode=sometimes", "sslmode sometimes"),
        ("postgres://u@h/db?target_session_attrs=standby", "target_session_attrs standby"),
    ])
    func refused(url: String, naming: String) {
        #expect {
            _ = try PostgresURL(url)
        } throws: { error in
            "\(error)".contains(naming)
        }
    }
}
