#!/bin/sh
test_description='kbx index: a .h header is C, C++ or Objective-C by its text

A header is Objective-C when a line starts, outside comments, with
@interface, @protocol, @implementation, @end or #import; a doxygen @class
or @interface in a comment leaves it C.  The decision is made again when
the text changes.'

. "$(dirname "$0")"/test-lib.sh

# lang_of PATH: the language the index gives PATH.
lang_of () {
	kbx defines --format=json "$1" >defs.json &&
	sed -n 's/.*"lang":"\([a-z]*\)".*/\1/p' defs.json | sort -u
}

test_expect_success 'set up headers' '
	git init -q repo &&
	cat >repo/shape.h <<-\EOF &&
	#import <Foundation/Foundation.h>
	@interface Shape : NSObject
	- (double)area;
	@end
	EOF
	cat >repo/doc.h <<-\EOF &&
	/**
	@interface Widget
	@class Widget
	 */
	struct widget { int size; };
	// @protocol Drawable
	const char *banner = "@interface";
	EOF
	cat >repo/shape.m <<-\EOF &&
	#import "shape.h"
	@implementation Shape
	- (double)area { return [self side] * 2; }
	- (double)side { return 1; }
	@end
	EOF
	(cd repo && kbx index -q)
'

test_expect_success 'a header with @interface is Objective-C, and its class has its methods' '
	(cd repo && lang_of shape.h) >actual && echo objc >expect && test_cmp expect actual &&
	(cd repo && kbx superclasses --format=json shape.h#Shape) >out.json &&
	test_grep "\"id\":\"extern:NSObject\"" out.json &&
	(cd repo && kbx callees --format=json shape.m#Shape.area) >out.json &&
	test_grep "\"id\":\"shape.m#Shape.side\".*\"confidence\":\"certain\"" out.json
'

test_expect_success 'Objective-C words in comments and strings leave a header C' '
	(cd repo && lang_of doc.h) >actual && echo c >expect && test_cmp expect actual
'

test_expect_success 'a header that becomes Objective-C is read again as Objective-C' '
	(cd repo &&
	 cat >>doc.h <<-\EOF &&
	@protocol Drawable
	- (void)draw;
	@end
	EOF
	 kbx index -q &&
	 kbx defines --format=json doc.h) >out.json &&
	test_grep "\"id\":\"doc.h#Drawable\".*\"lang\":\"objc\"" out.json
'

test_done
