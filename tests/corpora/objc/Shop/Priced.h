#import <Foundation/Foundation.h>

/* Anything with a price. */
@protocol Priced <NSObject>
- (double)price;
@end
