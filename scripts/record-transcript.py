#!/usr/bin/env python3
"""record-transcript.py NAME: records a real program's terminal output as a transcript for the
differential renderer test (tests/unit/render-diff, transcript.h): the program runs in a PTY of
a fixed size, scripted input and resizes are sent, and every output read is kept (decoded as
UTF-8) with the resizes in order, as tests/data/render-diff/NAME.json.

The scenarios are below (SCENARIOS); `record-transcript.py all` records every one whose program
is installed. Recording waits for the program to go quiet (IDLE seconds without output) after each
action; the replay in the test is deterministic, whatever the timing was here.
"""
import codecs, fcntl, json, os, pty, select, shutil, struct, sys, tempfile, termios, time

IDLE = 0.4
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Every program runs in a fresh directory (its working directory and HOME, removed afterwards)
# and gets its files by relative name: nothing of this machine's paths reaches the recording.

def lines_file(directory, count=50):
    with open(os.path.join(directory, "lines.txt"), "w") as f:
        for i in range(1, count + 1):
            f.write(f"line {i} of the file, long enough to wrap on a narrow screen: " + "x" * (i % 30) + "\n")
    return "lines.txt"

# CJK, fullwidth forms, emoji of Unicode 6-11 (two columns in every table in use here) and
# combining marks (precomposed and decomposed: e + U+0301).
UTF8_TEXT = (
    "日本語のテキストと漢字の行です。\n"
    "한국어 텍스트 줄, 中文字符\n"
    "ＡＢＣ全角ａｂｃ１２３\n"
    "emoji: 😀 🎉 👍 🚀 ✅ ⭐ 🐍\n"
    "combining: é ñ e\u0301 o\u0308 a\u0300\u0323 Z\u0335\n"
    "mixed: abc日本def語ghi😀jkl🎉mno\n"
)

def utf8_file(directory):
    with open(os.path.join(directory, "utf8.txt"), "w") as f:
        f.write(UTF8_TEXT)
    return "utf8.txt"

# curses programs switch the keypad to application mode (DECCKM): arrows send ESC O x.
DOWN = "\x1bOB"

# name: (argv builder taking the directory, columns, rows, actions); an action is ("input", text)
# or ("resize", c, r).
SCENARIOS = {
    "less": (lambda d: ["less", lines_file(d)], 80, 24,
             [("input", "G"), ("resize", 80, 12), ("input", "g"), ("resize", 60, 20), ("input", "q")]),
    "bash": (lambda d: ["bash", "--norc", "--noprofile", "-i"], 40, 10,
             [("input", "echo " + "abcdefghij" * 7 + "\r"), ("resize", 25, 10),
              ("input", "printf '\\033[31mred\\033[0m \\xe6\\x97\\xa5\\xe6\\x9c\\xac\\n'\r"),
              ("resize", 50, 8), ("input", "exit\r")]),
    "top": (lambda d: ["top", "-d", "10"], 80, 24, [("resize", 100, 30), ("input", "q")]),
    "python3": (lambda d: ["python3", "-q", "-i"], 60, 12,
                [("input", "print('é' * 70)\r"), ("resize", 40, 12), ("input", "exit()\r")]),
    # No vimrc, no viminfo, no swap file: only what the keys do.
    "vim.tiny": (lambda d: ["vim.tiny", "-u", "NONE", "-i", "NONE", "-N", "-n", lines_file(d)], 80, 24,
                 [("input", "G"), ("resize", 80, 12), ("input", "ggOinserted 日本語 text\x1b"),
                  ("input", "jdd"), ("resize", 60, 20), ("input", ":q!\r")]),
    "nano": (lambda d: ["nano", "--ignorercfiles", "notes.txt"], 60, 16,
             [("input", "hello from nano\rsecond line 日本語\r"), ("resize", 40, 12),
              ("input", "\x1b[A\x0b"), ("resize", 70, 20), ("input", "\x18"), ("input", "n")]),
    # htop shows only itself (-p with the shell's pid, which exec keeps), refreshing every 10 s.
    "htop": (lambda d: ["sh", "-c", "exec htop -d 100 -p $$"], 80, 24,
             [("input", "t"), ("resize", 100, 30), ("input", "h"), ("input", "q"),
              ("resize", 70, 20), ("input", "q")]),
    "dialog": (lambda d: ["dialog", "--menu", "Pick a fruit", "15", "40", "4", "1", "apple",
                          "2", "banana", "3", "cherry 桜", "4", "durian"], 60, 20,
               [("input", DOWN), ("resize", 50, 18), ("input", DOWN), ("resize", 70, 24),
                ("input", "\r")]),
    "dialog-yesno": (lambda d: ["dialog", "--yesno", "Proceed with the plan?", "8", "40"], 60, 16,
                     [("input", "\t"), ("resize", 30, 12), ("input", "\t"), ("input", "\r")]),
    # watch ignores keys but ^C (the tty's SIGINT); -t: no header (it shows the clock).
    "watch": (lambda d: ["watch", "-t", "-n", "0.5", "cat", utf8_file(d)], 50, 12,
              [("input", "x"), ("resize", 24, 10), ("resize", 60, 12), ("input", "\x03")]),
    # CJK, emoji and combining marks on a narrow screen: printed, reflowed by a resize to an
    # odd width (wide glyphs meet the edge), typed back through the tty's echo, printed again.
    "utf8": (lambda d: ["sh", "-c", "cat utf8.txt; IFS= read -r l; printf '[%s]\\n' \"$l\"; "
                        "cat " + utf8_file(d) + "; read x"], 21, 12,
             [("resize", 15, 12), ("input", "日本 😀 e\u0301!\r"), ("resize", 30, 10),
              ("input", "\r")]),
}

def set_size(fd, columns, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))

def drain(fd, steps, decoder, seconds=IDLE):
    # One incremental decoder for the whole run: a read may end inside a UTF-8 character.
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
        steps.append({"output": decoder.decode(data)})

# The program a scenario needs, where argv[0] is a shell around it.
NEEDS = {"htop": "htop", "utf8": "sh"}

def record(name):
    argv_builder, columns, rows, actions = SCENARIOS[name]
    directory = tempfile.mkdtemp(prefix="rea-record-")
    try:
        argv = argv_builder(directory)
        if shutil.which(NEEDS.get(name, argv[0])) is None:
            print(f"{name}: {NEEDS.get(name, argv[0])} is not installed, skipped")
            return
        # The size is set before the fork: the program never sees another one at its start.
        master, slave = pty.openpty()
        set_size(master, columns, rows)
        pid = os.fork()
        if pid == 0:
            os.close(master)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for target in (0, 1, 2):
                os.dup2(slave, target)
            if slave > 2:
                os.close(slave)
            os.chdir(directory)
            env = {"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8",
                   "HOME": directory, "PS1": "$ "}
            os.execvpe(argv[0], argv, env)
        os.close(slave)
        fd = master
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        steps = []
        drain(fd, steps, decoder, 1.0)
        for action in actions:
            if action[0] == "input":
                os.write(fd, action[1].encode())
            else:
                set_size(fd, action[1], action[2])
                steps.append({"resize": [action[1], action[2]]})
            drain(fd, steps, decoder)
        drain(fd, steps, decoder, 1.0)
        os.close(fd)
        os.waitpid(pid, 0)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
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
