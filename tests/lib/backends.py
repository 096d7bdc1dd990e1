"""One case class run against both Mem0 backends: the Platform and the self-hosted server.

    class ConsoleCase: ...                  # the test methods, written once
    PlatformConsole, SelfHostedConsole = per_backend("Console", ConsoleCase, HookTest, seed=seeds)
"""

BACKENDS = (("Platform", "platform"), ("SelfHosted", "selfhosted"))


def per_backend(name, cases, base, seed=None, selfhosted=None):
    """The classes Platform<name> and SelfHosted<name> made of `cases` (a mixin of test methods)
    on `base` (a case class with `backend` and `seed` attributes, as HookTest): each with its
    `backend`, and `seed(backend)` as its seed when seed is given. `selfhosted` sets attributes
    of the self-hosted class only (a test set to None is not run there)."""
    made = []
    for prefix, backend in BACKENDS:
        attrs = {"backend": backend, "__module__": cases.__module__,
                 "__qualname__": prefix + name}
        if seed is not None:
            attrs["seed"] = seed(backend)
        if backend == "selfhosted":
            attrs.update(selfhosted or {})
        made.append(type(prefix + name, (cases, base), attrs))
    return made
