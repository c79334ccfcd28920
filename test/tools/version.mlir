// mx-opt --version names the tool, its version and the xDSL it runs on.

// RUN: mx-opt --version | filecheck %s
// RUN: python -c "import mxdsl; print('mx-opt', mxdsl.__version__, '(xdsl 0.75.0)')" | filecheck %s

// CHECK: {{^mx-opt [0-9]+\.[0-9]+\.[0-9]+[^ ]* \(xdsl 0\.75\.0\)$}}
