extension Shout on String {
  String shout() => toUpperCase();
}

class Log {
  void write(String message) => print(message.shout());
}

enum Level { info, warn }
