func.func @main() {
  faulty.op "verify"
  func.return
}
