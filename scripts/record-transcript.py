#!/usr/bin/env python3
"""record-transcript.py NAME: records a real program's terminal output as a transcript for the
differential renderer test (tests/unit/render-diff, transcript.h): the program runs in a PTY of
a fixed size, scripted input and resizes are sent, and every output read is kept (decoded as
UTF-8) with the resizes in order, as tests/data/render-diff/NAME.json.

The scenarios are below (SCENARIOS); `record-transcript.py all` records every one whose program
is installed. Recording waits for the program to go quiet (IDLE seconds without output) after each
action; the replay in the test is deterministic, whatever the timing was here.
"""
import fcntl, json, os, pty, select, shutil, struct, sys, tempfile, termios, time

IDLE = 0.4
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def lines_file(count):
    path = os.path.join(tempfile.mkdtemp(prefix="rea-record-"), "lines.txt")
    with open(path, "w") as f:
        for i in range(1, count + 1):
            f.write(f"line {i} of the file, long enough to wrap on a narrow screen: " + "x" * (i % 30) + "\n")
    return path

# name: (argv builder, columns, rows, actions); an action is ("input", text) or ("resize", c, r).
SCENARIOS = {
    "less": (lambda: ["less", lines_file(50)], 80, 24,
             [("input", "G"), ("resize", 80, 12), ("input", "g"), ("resize", 60, 20), ("input", "q")]),
    "bash": (lambda: ["bash", "--norc", "--noprofile", "-i"], 40, 10,
             [("input", "echo " + "abcdefghij" * 7 + "\r"), ("resize", 25, 10),
              ("input", "printf '\\033[31mred\\033[0m \\xe6\\x97\\xa5\\xe6\\x9c\\xac\\n'\r"),
              ("resize", 50, 8), ("input", "exit\r")]),
    "top": (lambda: ["top", "-d", "10"], 80, 24, [("resize", 100, 30), ("input", "q")]),
    "python3": (lambda: ["python3", "-q", "-i"], 60, 12,
                [("input", "print('é' * 70)\r"), ("resize", 40, 12), ("input", "exit()\r")]),
}

def set_size(fd, columns, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))

def drain(fd, steps, seconds=IDLE):
    while True:
        ready, _, _ = select.select([fd], [], [], seconds)
        if not ready:
            return
        try:
            data = os.read(fd, 65536)
        except OSError:
            return
        if not data:
            return
        steps.append({"output": data.decode("utf-8", "replace")})

def record(name):
    argv_builder, columns, rows, actions = SCENARIOS[name]
    argv = argv_builder()
    if shutil.which(argv[0]) is None:
        print(f"{name}: {argv[0]} is not installed, skipped")
        return
    pid, fd = pty.fork()
    if pid == 0:
        env = {"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8",
               "HOME": "/tmp", "PS1": "$ "}
        os.execvpe(argv[0], argv, env)
    set_size(fd, columns, rows)
    steps = []
    drain(fd, steps, 1.0)
    for action in actions:
        if action[0] == "input":
            os.write(fd, action[1].encode())
        else:
            set_size(fd, action[1], action[2])
            steps.append({"resize": [action[1], action[2]]})
        drain(fd, steps)
    drain(fd, steps, 1.0)
    os.close(fd)
    os.waitpid(pid, 0)
    out = os.path.join(ROOT, "tests", "data", "render-diff", name + ".json")
    with open(out, "w") as f:
        json.dump({"columns": columns, "rows": rows, "steps": steps}, f, ensure_ascii=False, indent=0)
        f.write("\n")
    print(f"{name}: {len(steps)} steps -> {out}")

if __name__ == "__main__":
    names = list(SCENARIOS) if sys.argv[1:] == ["all"] else sys.argv[1:]
    if not names:
        sys.exit(__doc__)
    for n in names:
        record(n)
