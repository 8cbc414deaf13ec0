#import <Foundation/Foundation.h>

@protocol Priced
- (double)price;
@end

@interface Base : NSObject <Priced>
- (NSString *)describe;
- (double)price;
+ (Base *)make;
@end

/* Sub overrides describe in its @implementation only */
@interface Sub : Base
- (void)extra;
@end

@interface Leaf : NSObject {
	int size;
}
@property int size;
- (void)grow;
@end

/* a category on a system class that only declares a method */
@interface NSObject (Hidden)
- (void)secret;
@end
