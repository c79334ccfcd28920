"""mxdsl: the MX (OCP microscaling) path of the Neuron compiler on xDSL.

Three levels with one semantics: ``hlo`` (graph-level custom calls and their MX
contract), ``nisa`` (the NKI ISA in destination-passing style) and ``bir`` (backend
instructions over physical access patterns). See ``docs/`` and the project design.
"""

__version__ = "0.1.0"
