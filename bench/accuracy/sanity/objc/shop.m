#import "shop.h"

@implementation Base
- (NSString *)describe { return @"base"; }
- (double)price { return 1.0; }
+ (Base *)make { return [[self alloc] init]; }
@end

@implementation Sub
- (NSString *)describe { return [super describe]; }
- (void)extra { [self describe]; [self secret]; }
@end

@implementation Leaf
@synthesize size;
- (void)grow { [self setSize:[self size] + 1]; }
@end
