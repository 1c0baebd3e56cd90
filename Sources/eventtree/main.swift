import EventTreeCommands

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

exit(EventTreeCommand.run(Array(CommandLine.arguments.dropFirst())))
