"""lit configuration: every *.mlir under test/ is a lit test (pytest files live beside)."""

import os

import lit.formats

config.name = "mxdsl"  # noqa: F821 (lit injects `config`)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["Inputs"]  # noqa: F821

project_root = os.path.dirname(config.test_source_root)  # noqa: F821
config.substitutions.append(("%examples", os.path.join(project_root, "examples")))  # noqa: F821
config.substitutions.append(  # noqa: F821
    (
        "MX_ROUNDTRIP",
        "mx-opt %s --print-op-generic --split-input-file | mx-opt --split-input-file "
        "| filecheck %s",
    )
)
config.environment["PYTHONWARNINGS"] = "ignore"  # noqa: F821

# test/extension runs the example extension through the tools: it must be installed
# (the README's test command does it).
try:
    import mxdsl_ext_example  # noqa: F401
except ImportError:
    lit_config.warning(  # noqa: F821
        "the example extension is not installed, so test/extension fails: "
        "pip install -e examples/extension"
    )
