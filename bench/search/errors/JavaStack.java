public class JavaStack {
	static int f(int n) { return f(n + 1) + 1; }
	public static void main(String[] args) { f(0); }
}
