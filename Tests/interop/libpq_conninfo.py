"""How libpq itself reads PostgreSQL URLs (PQconninfoParse from libpq5, through ctypes):
prints, for each URL on the command line, a JSON object of its hosts, ports, user,
password, database, sslmode and target_session_attrs, or {"error": …} when libpq refuses
it. The store's own URL reading (PostgresURL) is checked against this."""
import ctypes
import ctypes.util
import json
import sys


class Option(ctypes.Structure):
    _fields_ = [
        ("keyword", ctypes.c_char_p), ("envvar", ctypes.c_char_p), ("compiled", ctypes.c_char_p),
        ("val", ctypes.c_char_p), ("label", ctypes.c_char_p), ("dispchar", ctypes.c_char_p),
        ("dispsize", ctypes.c_int),
    ]


libpq = ctypes.CDLL(ctypes.util.find_library("pq") or "libpq.so.5")
libpq.PQconninfoParse.restype = ctypes.POINTER(Option)
libpq.PQconninfoParse.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
libpq.PQconninfoFree.argtypes = [ctypes.POINTER(Option)]
libpq.PQfreemem.argtypes = [ctypes.c_void_p]

results = []
for url in sys.argv[1:]:
    message = ctypes.c_char_p()
    options = libpq.PQconninfoParse(url.encode(), ctypes.byref(message))
    if not options:
        results.append({"error": (message.value or b"refused").decode().strip()})
        continue
    values = {}
    index = 0
    while options[index].keyword:
        if options[index].val is not None:
            values[options[index].keyword.decode()] = options[index].val.decode()
        index += 1
    libpq.PQconninfoFree(options)
    hosts = values.get("host", "").split(",")
    ports = values.get("port", "").split(",")
    if len(ports) == 1:
        ports = ports * len(hosts)
    results.append({
        "hosts": [{"host": host, "port": int(port) if port else 5432} for host, port in zip(hosts, ports)],
        "user": values.get("user"), "password": values.get("password"), "database": values.get("dbname"),
        "sslmode": values.get("sslmode", "prefer"), "target_session_attrs": values.get("target_session_attrs", "any"),
    })
print(json.dumps(results))
