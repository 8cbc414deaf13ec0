public class JavaCast {
	public static void main(String[] args) {
		Object o = Integer.valueOf(1);
		String s = (String) o;
		System.out.println(s);
	}
}
