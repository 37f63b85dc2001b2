"""Writes a program nested N levels of brackets deep to standard output.

usage: nested.py arrays N   tfrt_test.flat over N - 2 nested arrays
       nested.py ifs N      N - 1 tfrt.if ops, each in the last one's region

The function body and the op's attribute dictionary (arrays) or the
function body (ifs) take the other levels.
"""
import sys


def arrays(levels):
    depth = levels - 2
    return "\n".join([
        "func.func @flat() -> i32 {",
        '  %a = "tfrt_test.flat"() {value = ' + "[" * depth + "7 : i32" +
        "]" * depth + "} : () -> i32",
        "  tfrt.return %a : i32",
        "}",
    ])


def ifs(levels):
    count = levels - 1
    lines = [
        "func.func @deep_if() -> i32 {",
        "  %x = tfrt.constant.i32 7",
    ]
    # A region sees only its arguments, which take the operands' names.
    for i in range(count):
        lines.append("%%t%d = tfrt.constant.i1 1" % i)
        lines.append("%%r%d = tfrt.if %%t%d, %%x : (i32) -> (i32) {" % (i, i))
    lines.append("tfrt.return %x : i32")
    for i in reversed(range(count)):
        lines += ["} else {", "tfrt.return %x : i32", "}"]
        lines.append("tfrt.return %%r%d : i32" % i)
    lines.append("}")
    return "\n".join(lines)


if __name__ == "__main__":
    kind, levels = sys.argv[1], int(sys.argv[2])
    print({"arrays": arrays, "ifs": ifs}[kind](levels))
