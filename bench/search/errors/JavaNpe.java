public class JavaNpe {
	static String name;
	public static void main(String[] args) {
		System.out.println(name.length());
	}
}
