#import "Base.h"
#import "Priced.h"

@class Item;
@class Log;

@interface Cart : Base <Priced> {
	Log *log;
}
@property (nonatomic, strong) Item *last;
+ (instancetype)empty;
- (void)addItem:(Item *)item quantity:(int)count;
- (double)total;
@end
