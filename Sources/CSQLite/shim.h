// The system's SQLite C API (Debian: libsqlite3-dev; macOS: the SDK's libsqlite3).
#include <sqlite3.h>
