// eventtree-harness: the reliability harnesses of Scripts/reliability.sh.
//
//   eventtree-harness child  OPTIONS   a process that journals from several threads
//   eventtree-harness kill   OPTIONS   kill -9 loop over child processes
//   eventtree-harness power  OPTIONS   power cuts at a random I/O (fault VFS)
//   eventtree-harness faults OPTIONS   SQLITE_FULL / SQLITE_IOERR injected at every write and sync
//   eventtree-harness diskfull OPTIONS a real full filesystem (a small tmpfs), then kill or free
//   eventtree-harness readers OPTIONS  readers (the tool, Python's sqlite3) beside a writer
//
// Each harness prints one line per failed trial and ends with "NAME: N passed, N failed".
import Foundation

let arguments = Arguments(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.command {
case "child": status = Child(arguments).run()
case "kill": status = KillTrials(arguments).run()
case "power": status = PowerTrials(arguments).run()
case "faults": status = FaultTrials(arguments).run()
case "diskfull": status = DiskFullTrials(arguments).run()
case "readers": status = ReaderTrials(arguments).run()
default:
    FileHandle.standardError.write(Data("usage: eventtree-harness child|kill|power|faults|diskfull|readers [options]\n".utf8))
    status = 2
}
exit(status)
