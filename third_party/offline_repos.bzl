"""Offline repository glue for Debian's bazel-bootstrap 4.2.3.

Bazel's own rule repositories are taken from /usr/src/bazel-bootstrap/mock_repos (Debian package
`bazel-bootstrap-source`) so the build never touches the network. A user with network access and
a newer Bazel can replace `parity_offline_repositories()` with the usual http_archive calls.
"""

_MOCK_REPOS = "/usr/src/bazel-bootstrap/mock_repos/"

def parity_offline_repositories():
    for name in [
        "rules_cc",
        "rules_java",
        "rules_proto",
        "platforms",
        "bazel_skylib",
        "remote_java_tools_linux",
    ]:
        native.local_repository(name = name, path = _MOCK_REPOS + name)

    # Bazel's test runner references @remote_coverage_tools even without coverage; an in-repo
    # stub with the two filegroups it asks for keeps `bazel test` offline.
    native.local_repository(
        name = "remote_coverage_tools",
        path = "third_party/remote_coverage_tools",
    )
