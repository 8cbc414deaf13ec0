public class JavaCompile {
	public static void main(String[] args) {
		int n = "five";
	}
}
